# tests/trace
