// closed: the other side of a channel is gone (a oneshot sender dropped
// without sending, a channel whose senders are all dropped). An ordinary
// outcome, returned in a result, never thrown.
#pragma once

namespace lanes {

struct closed {};

}  // namespace lanes
