# tests/gen
