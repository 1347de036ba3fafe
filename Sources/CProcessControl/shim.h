#ifndef TWEETCLI_CPROCESSCONTROL_SHIM_H
#define TWEETCLI_CPROCESSCONTROL_SHIM_H
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* prctl is variadic, which Swift cannot call: the one use tweetbench has, fixed. Makes the calling
   process the subreaper of its descendants, so that orphans are reparented to it, not to init. */
static inline int tweetbench_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Puts process `pid` behind every other in the CPU and I/O queues: the lowest nice value and the
   idle I/O class (linux/ioprio.h: class 3, level 0). ioprio_set has no libc wrapper and syscall is
   variadic. Best effort: returns -1 when either is refused. */
static inline int tweetcli_deprioritize(pid_t pid) {
    int niced = setpriority(PRIO_PROCESS, (id_t)pid, 19);
    long idle = syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, (int)pid, 3 << 13);
    return niced == 0 && idle == 0 ? 0 : -1;
}

/* The same for the calling thread alone: Linux applies both to the thread whose ID it is given,
   so a compaction's merge can write behind every other process while its commits, on another
   thread, hold the store's lock at the usual priority. */
static inline int tweetcli_deprioritize_this_thread(void) {
    return tweetcli_deprioritize((pid_t)syscall(SYS_gettid));
}

/* Starts writing back the file's dirty pages in [offset, offset + length) and, with `wait`, waits
   for those already under way first and for these to finish: sync_file_range, which glibc declares
   only under _GNU_SOURCE (flags from linux/fs.h: WAIT_BEFORE 1, WRITE 2, WAIT_AFTER 4). It makes
   nothing durable (no metadata, no disk cache flush); a writer calls it to keep its unwritten
   bytes bounded, so that no one fsync later has a long queue to flush. Best effort: -1 if refused. */
static inline int tweetcli_write_back(int fd, long long offset, long long length, int wait) {
    unsigned int flags = wait ? 1 | 2 | 4 : 2;
    return (int)syscall(SYS_sync_file_range, fd, (long long)offset, (long long)length, flags);
}

/* The calling thread's ID (gettid), for tests that read its priority back. */
static inline pid_t tweetcli_thread_id(void) {
    return (pid_t)syscall(SYS_gettid);
}
/* Fixes glibc's mmap threshold at `bytes` (malloc.h's M_MMAP_THRESHOLD, which Swift does not
   see): blocks that large are mapped and unmapped for themselves, and the threshold no longer
   rises with each one freed. */
static inline int tweetcli_fix_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

/* Gives the heap's free memory back to the system (malloc_trim, which Swift does not see). */
static inline void tweetcli_trim_heap(void) {
    malloc_trim(0);
}

#endif
