# tests/live: end-to-end tests against a private lttng-sessiond (and later
# lttng-relayd). They need root and lttng-tools, and skip cleanly otherwise.
TESTS += live/test-probes.sh live/test-locks.sh
EXTRA_DIST += live/lib.sh live/test-probes.sh live/test-locks.sh
