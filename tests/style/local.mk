# tests/style: the tree follows .clang-format; headers are self-contained and
# include nothing from a layer above theirs.
TESTS += style/test-format.sh
EXTRA_DIST += style/test-format.sh
