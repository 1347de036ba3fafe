#!/usr/bin/env python3
"""Times `tweetcli tui` in a pseudo-terminal of its own (issue 45's targets).

usage: Benchmarks/Scripts/tuibench.py TWEETCLI STORE [--runs N] [--idle SECONDS] [--scroll N]

For each of N runs, a fresh process: the time from its start to its first full frame (the key
hints on the last row), and the time from a key that moves the selection to the frame it draws.
Then, in one process: its CPU time while idle, a post by another process until its bar shows,
and its peak RSS after moving through --scroll tweets. Prints medians and the raw figures.
"""
import os, pty, select, statistics, subprocess, sys, time

def spawn(tweetcli, store, rows=40, cols=100):
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"TERM": "xterm-256color", "LANG": "C.UTF-8", "COLUMNS": str(cols), "LINES": str(rows)})
        os.execv(tweetcli, [tweetcli, "--store", store, "tui"])
    import fcntl, struct, termios
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return pid, fd

def read_until(fd, needle, timeout=10.0):
    """Reads until `needle` is in what came; returns the seconds it took, or None."""
    start, seen = time.monotonic(), b""
    while time.monotonic() - start < timeout:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return None
            seen += chunk
            if needle in seen:
                return time.monotonic() - start
    return None

def drain(fd, quiet=0.1):
    while select.select([fd], [], [], quiet)[0]:
        try:
            os.read(fd, 65536)
        except OSError:
            return

def quit(pid, fd):
    os.write(fd, b"q")
    os.waitpid(pid, 0)
    os.close(fd)

def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])

def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    tweetcli, store = args[0], args[1]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 9
    idle = float(args[args.index("--idle") + 1]) if "--idle" in args else 60
    scroll = int(args[args.index("--scroll") + 1]) if "--scroll" in args else 1000
    firsts, keys = [], []
    for _ in range(runs):
        start = time.monotonic()
        pid, fd = spawn(tweetcli, store)
        if read_until(fd, b"j/k move") is None:
            sys.exit("no first frame")
        firsts.append(time.monotonic() - start)
        drain(fd)
        begin = time.monotonic()
        os.write(fd, b"j")
        if read_until(fd, "▌".encode()) is None:
            sys.exit("no frame after j")
        keys.append(time.monotonic() - begin)
        quit(pid, fd)
    print(f"first frame: median {statistics.median(firsts) * 1000:.1f} ms "
          f"(min {min(firsts) * 1000:.1f}, max {max(firsts) * 1000:.1f}) over {runs} runs")
    print(f"frame after j: median {statistics.median(keys) * 1000:.1f} ms "
          f"(min {min(keys) * 1000:.1f}, max {max(keys) * 1000:.1f})")

    pid, fd = spawn(tweetcli, store)
    read_until(fd, b"j/k move")
    drain(fd, 0.5)
    ticks = cpu_ticks(pid)
    time.sleep(idle)
    used = cpu_ticks(pid) - ticks
    hz = os.sysconf("SC_CLK_TCK")
    print(f"idle {idle:.0f} s: {used} ticks of CPU ({used / hz / idle * 100:.3f} %)")
    drain(fd)
    begin = time.monotonic()
    subprocess.run([tweetcli, "--store", store, "post", "posted while the app watches"], check=True,
                   stdout=subprocess.DEVNULL)
    posted = time.monotonic() - begin
    shown = read_until(fd, b"new tweet")
    if shown is None:
        sys.exit("another process's post never showed")
    print(f"another process's post counted in the bar {(posted + shown) * 1000:.0f} ms after the post "
          f"started ({shown * 1000:.0f} ms after it returned)")
    for _ in range(scroll):
        os.write(fd, b"j")
        drain(fd, 0.002)
    drain(fd, 0.5)
    # Where the selection is now: the ID on the status line (y), so a run that did not move says so.
    os.write(fd, b"y")
    time.sleep(0.3)
    tail = os.read(fd, 65536).decode("utf-8", "replace")
    copied = tail.split("Copied ")[1].split(" ")[0] if "Copied " in tail else "?"
    print(f"selected after moving: tweet {copied}")
    rss = [line for line in open(f"/proc/{pid}/status") if line.startswith("VmHWM")][0].split()[1]
    print(f"peak RSS after moving through {scroll} tweets: {int(rss) / 1024:.1f} MiB")
    quit(pid, fd)

main()
