# tests/live
