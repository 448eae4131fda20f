# SPDX-License-Identifier: MIT
# tests/live/test-mock-relayd-bt2.sh: test-mock-relayd.sh again, the session read by
# babeltrace2's lttng-live source ([live] decoder = babeltrace2) instead of
# jank's own client and native decoder: the same cases, the same alerts.
JANK_LIVE_DECODER=babeltrace2
export JANK_LIVE_DECODER
. "$top_srcdir/tests/live/test-mock-relayd.sh"
