#!/usr/bin/env python3
"""Measures how long a small append + fsync waits while another file of hundreds of megabytes is
deleted beside it: at once (unlink), or cut from its end a few megabytes at a time, each cut
fsynced, as a merge removes the segments it replaced (docs/STORAGE.md, "Each merge").

A thread appends a 900-byte line to a journal-like file and fsyncs it every 2 ms, the pace of the
write-stall test's posts, while the main thread three times writes a file of --megabytes (1 MiB at
a time, each written back with sync_file_range, as a merge writes) and deletes the previous one.
It prints the appends' median, p99, p99.9 and max latency and the phase the slowest five met.

    python3 Scripts/unlink-stall.py unlink          # delete at once
    python3 Scripts/unlink-stall.py cut             # cut 4 MiB at a time, then unlink
    python3 Scripts/unlink-stall.py cut --step 16   # 16 MiB at a time

It writes about 1.5 GB in --directory (default: a new temporary directory on the file system of
the current one), and removes it all at the end.
"""

import argparse
import ctypes
import os
import shutil
import tempfile
import threading
import time

SYS_SYNC_FILE_RANGE = 277  # x86_64
SYNC_FILE_RANGE_ALL = 7  # WAIT_BEFORE | WRITE | WAIT_AFTER
MIB = 1 << 20


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["unlink", "cut"])
    parser.add_argument("--step", type=int, default=4, help="MiB cut at a time (cut)")
    parser.add_argument("--megabytes", type=int, default=360, help="size of the deleted file")
    parser.add_argument("--directory", default=None)
    arguments = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="unlink-stall-", dir=arguments.directory or os.getcwd())
    try:
        run(arguments, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def write_file(path, megabytes, libc):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    chunk = os.urandom(MIB)
    for index in range(megabytes):
        os.write(fd, chunk)
        libc.syscall(SYS_SYNC_FILE_RANGE, fd, ctypes.c_longlong(index * MIB), ctypes.c_longlong(MIB),
                     SYNC_FILE_RANGE_ALL)
    os.fsync(fd)
    os.close(fd)


def remove(path, mode, step):
    if mode == "cut":
        fd = os.open(path, os.O_WRONLY)
        size = os.fstat(fd).st_size
        while size > 0:
            size = max(0, size - step * MIB)
            os.ftruncate(fd, size)
            os.fsync(fd)
        os.close(fd)
    os.unlink(path)


def run(arguments, directory):
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    old = os.path.join(directory, "old.seg")
    new = os.path.join(directory, "new.seg")
    write_file(old, arguments.megabytes, libc)
    latencies = []
    stop = threading.Event()

    def appender():
        fd = os.open(os.path.join(directory, "journal"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        line = b"x" * 899 + b"\n"
        written = 0
        while not stop.is_set():
            start = time.perf_counter()
            os.write(fd, line)
            os.fsync(fd)
            latencies.append((time.time(), time.perf_counter() - start))
            written += len(line)
            if written > 4 * MIB:  # A fold starts the journal again.
                os.ftruncate(fd, 0)
                os.fsync(fd)
                written = 0
            time.sleep(0.002)
        os.close(fd)

    thread = threading.Thread(target=appender)
    thread.start()
    time.sleep(1)
    phases = []
    for _ in range(3):
        phases.append(("writing", time.time()))
        write_file(new, arguments.megabytes, libc)
        phases.append(("deleting", time.time()))
        began = time.perf_counter()
        remove(old, arguments.mode, arguments.step)
        took = time.perf_counter() - began
        os.rename(new, old)
        phases.append(("idle", time.time()))
        print(f"deleting {arguments.megabytes} MiB ({arguments.mode}) took {took:.3f} s")
        time.sleep(1)
    stop.set()
    thread.join()
    ordered = sorted(latency for _, latency in latencies)

    def at(fraction):
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] * 1000

    print(f"{arguments.mode}: {len(ordered)} appends, median {at(0.5):.2f} ms, p99 {at(0.99):.2f} ms, "
          f"p99.9 {at(0.999):.2f} ms, max {ordered[-1] * 1000:.2f} ms")
    for when, latency in sorted(latencies, key=lambda item: -item[1])[:5]:
        phase, since = max((p for p in phases if p[1] <= when), key=lambda p: p[1], default=("start", when))
        print(f"  {latency * 1000:.1f} ms, {when - since:.2f} s into {phase}")


if __name__ == "__main__":
    main()
