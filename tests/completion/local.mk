# tests/completion: the bash completions of completions/, sourced in bash.
TESTS += completion/test-completion.sh
EXTRA_DIST += completion/test-completion.sh
