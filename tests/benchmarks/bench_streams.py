"""A stream's server cost beside one command a second.

An open stream (`kubectl get nodes -L nvidia.com/mig.config.state -w`, `watch kubectl get
nodes`) costs the server one step a second (two for watch's default 2 s): the world steps once
and the probe runs once, as one typed command does, and the step is kept as one logged line.
This runs the same lab both ways for `--seconds` simulated seconds and prints the processor
time per second of each (the lab's work; the database append and the websocket frame are the
same for both). A lab has one stream at a time (studysite.lab.consumers), so ten watches open
cost what one does. Prints, never asserts.

    .venv/bin/python -m tests.benchmarks.bench_streams [--seconds 120]
"""

from __future__ import annotations

import argparse
import time

from simulators.lab import LabSession, streams

COMMAND = "kubectl get nodes -L nvidia.com/mig.config.state"


def per_second(lines: list[str], lab: LabSession) -> float:
    """Milliseconds of processor time per line, one line a second."""
    start = time.thread_time()
    for line in lines:
        lab.run(line)
    return (time.thread_time() - start) * 1000 / len(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=120)
    seconds = parser.parse_args().seconds

    typed = LabSession.new("mig-single", seed=0)
    command_ms = per_second([COMMAND] * seconds, typed)

    watched = LabSession.new("mig-single", seed=0)
    opened = watched.run(COMMAND + " -w")
    assert opened.stream is not None
    stream = streams.Stream(opened.stream)
    stream.first(opened.output)
    step = streams.step_line(opened.stream)
    start = time.thread_time()
    for _ in range(seconds):
        stream.feed(watched.run(step).output)
    stream_ms = (time.thread_time() - start) * 1000 / seconds

    screen = LabSession.new("mig-single", seed=0)
    watch = screen.run("watch kubectl get nodes")
    assert watch.stream is not None
    # watch steps every 2 s: half as many steps as seconds.
    watch_ms = per_second([streams.step_line(watch.stream)] * (seconds // 2), screen) / 2

    print(f"one command a second ({COMMAND}): {command_ms:.2f} ms of CPU per second")
    print(f"kubectl get -w stream (a step a second, rows diffed): {stream_ms:.2f} ms per second")
    print(f"watch kubectl get nodes (a step every 2 s): {watch_ms:.2f} ms per second")
    print(f"stream / command: {stream_ms / command_ms:.2f}")


if __name__ == "__main__":
    main()
