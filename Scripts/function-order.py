#!/usr/bin/env python3
"""Writes Linker/tweetcli.order and, when the benchmarks are built, Benchmarks/Linker/floor.order:
the functions each program runs, for the linker to lay out side by side (gold's
--section-ordering-file, which Package.swift and Benchmarks/Package.swift pass to release links).

A command runs code from all over a large text section, and each first touch of a window of it is
a page fault: placed together, the functions the commands run touch fewer windows.

Run after `swift build -c release --static-swift-stdlib --product tweetcli` (and, for the floor,
the same build with `--package-path Benchmarks`); it needs valgrind. It seeds a small store in a temporary directory, runs every kind of command once under
callgrind (which lists each function it saw run), and orders the functions by how many of the
commands ran them, then by how many instructions they ran. Names the linker does not find are
ignored, so a stale file only costs speed; regenerate it after large changes.

    python3 Scripts/function-order.py
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")
COMMANDS = [
    ["feed", "--limit", "20"],
    ["feed", "--following", "--limit", "20"],
    ["profile", "{uid}", "--tab", "tweets", "--limit", "20"],
    ["profile", "{uid}", "--tab", "replies", "--limit", "20"],
    ["profile", "{uid}", "--tab", "likes", "--limit", "20"],
    ["notifications", "--limit", "20"],
    ["bookmarks", "--limit", "20"],
    ["search", "the", "--limit", "20"],
    ["search", "#swiftui", "--limit", "20"],
    ["search", "@{username}", "--limit", "20"],
    ["search", "東京", "--limit", "20"],
    ["explore", "ada"],
    ["trends"],
    ["whoami"],
    ["thread", "{tweet}"],
    ["post", "laying out the functions"],
    ["like", "{tweet}"],
    ["unlike", "{tweet}"],
    ["retweet", "{tweet}"],
    ["unretweet", "{tweet}"],
    ["bookmark", "{tweet}"],
    ["unbookmark", "{tweet}"],
]


def run(arguments, **options):
    return subprocess.run(arguments, check=True, capture_output=True, text=True, **options).stdout


def functions_run(profile):
    """Each function a callgrind output file names, with the instructions it ran itself (a call's
    line, which follows its `calls=` line, carries the callee's inclusive cost and is skipped)."""
    names, costs, current, call = {}, collections.Counter(), None, False
    with open(profile, errors="replace") as lines:
        for line in lines:
            if line.startswith("totals:"):
                break
            if line.startswith("summary:"):  # valgrind 3.19 writes it before the functions
                continue
            match = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if match:
                kind, number, name = match.groups()
                if name:
                    names[number] = name.split("'")[0]  # name'2: a deeper level of recursion
                if kind == "fn":
                    current = names.get(number)
                    if current:
                        costs[current] += 0
                continue
            if line.startswith("calls="):
                call = True
                continue
            fields = line.split()
            if call:
                call = False
            elif current and len(fields) >= 2 and fields[1].isdigit():
                costs[current] += int(fields[1])
    return costs


def profile(program, arguments, workspace, index):
    output = os.path.join(workspace, f"callgrind.{index}")
    subprocess.run(
        ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={output}", program] + arguments,
        check=True, capture_output=True, env=dict(os.environ, HOME=workspace))
    return functions_run(output)


def write_order(program, profiles, path):
    defined = set()
    for line in run(["nm", "--defined-only", program]).splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            defined.add(fields[2])
    uses, costs = collections.Counter(), collections.Counter()
    for functions in profiles:
        for name, cost in functions.items():
            uses[name] += 1
            costs[name] += cost
    ordered = sorted((name for name in uses if name in defined), key=lambda name: (-uses[name], -costs[name], name))
    with open(path, "w") as order:
        order.writelines(f".text.{name}\n" for name in ordered)
    print(f"{path}: {len(ordered)} functions")


def main():
    tweetcli = os.path.join(RELEASE, "tweetcli")
    floor = os.path.join(ROOT, "Benchmarks", ".build", "release", "floor")
    if not os.access(tweetcli, os.X_OK):
        sys.exit(f"error: {tweetcli} is missing; run swift build -c release --static-swift-stdlib first")
    os.makedirs(os.path.join(ROOT, "Linker"), exist_ok=True)
    with tempfile.TemporaryDirectory() as workspace:
        store = os.path.join(workspace, "store")
        environment = dict(os.environ, HOME=workspace)
        base = [tweetcli, "--store", store]
        run(base + ["seed", "--users", "100", "--tweets", "2000", "--follows", "20", "--seed", "7"], env=environment)
        user = json.loads(run(base + ["explore", "--json"], env=environment))[0]
        run(base + ["login", "--username", user["username"], "--password-stdin"], env=environment,
            input="tweetcli-demo\n")
        page = json.loads(run(base + ["feed", "--json", "--limit", "20"], env=environment))
        tweet = next(item["id"] for item in page if not item.get("didLike"))  # so that `like` likes it
        values = {"uid": user["id"], "username": user["username"], "tweet": tweet}
        profiles = []
        for index, command in enumerate(COMMANDS):
            arguments = ["--store", store] + [part.format(**values) for part in command]
            profiles.append(profile(tweetcli, arguments, workspace, index))
        write_order(tweetcli, profiles, os.path.join(ROOT, "Linker", "tweetcli.order"))
        if os.access(floor, os.X_OK):
            floor_order = os.path.join(ROOT, "Benchmarks", "Linker", "floor.order")
            write_order(floor, [profile(floor, [], workspace, "floor")], floor_order)


if __name__ == "__main__":
    main()
