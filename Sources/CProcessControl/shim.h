#ifndef TWEETCLI_CPROCESSCONTROL_SHIM_H
#define TWEETCLI_CPROCESSCONTROL_SHIM_H
#include <sys/prctl.h>

/* prctl is variadic, which Swift cannot call: the one use tweetbench has, fixed. Makes the calling
   process the subreaper of its descendants, so that orphans are reparented to it, not to init. */
static inline int tweetbench_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}
#endif
