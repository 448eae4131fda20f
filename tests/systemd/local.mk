# tests/systemd: jank installed in a throw-away container booted by systemd
# (root; skips otherwise). See test-systemd-boot.sh.
TESTS += systemd/test-systemd-boot.sh
EXTRA_DIST += systemd/test-systemd-boot.sh
