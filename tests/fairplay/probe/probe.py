"""Reads the machine-wide counters two colluding bots could talk through, once per input line, and prints
them as one JSON object: a value, or the error met. Given "hold", it also takes an exclusive lock on a
file every sandbox shares and keeps it; given "pty", it tries to open a pseudo-terminal."""

import ctypes
import fcntl
import json
import os
import sys

SHARED = "/usr/bin/env"  # a file every sandbox sees (read-only)
held = []


def read(path, pick=None):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        return f"error: {e.strerror}"
    return pick(text) if pick else text


def field(name):
    return lambda text: next((line for line in text.splitlines() if line.startswith(name)), "absent")


def attempt(action):
    try:
        return f"ok: {action()}"
    except OSError as e:
        return f"error: {e.strerror}"


def try_lock():
    with open(SHARED, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return "locked"


def sysinfo_procs():
    buf = ctypes.create_string_buffer(256)
    if ctypes.CDLL(None, use_errno=True).sysinfo(buf) != 0:
        return f"error: {os.strerror(ctypes.get_errno())}"
    return int.from_bytes(buf.raw[80:82], "little")  # struct sysinfo.procs


# system call numbers of the kernel's log (syslog) and of flushing every file system (sync, syncfs)
CALLS = {"x86_64": {"syslog": 103, "sync": 162, "syncfs": 306}, "aarch64": {"syslog": 116, "sync": 81, "syncfs": 267}}


def call(name, *args):
    number = CALLS.get(os.uname().machine, {}).get(name)
    if number is None:
        return "unknown"
    if ctypes.CDLL(None, use_errno=True).syscall(number, *args) < 0:
        return f"error: {os.strerror(ctypes.get_errno())}"
    return "ok"


def readings():
    return {
        "pty_nr": read("/proc/sys/kernel/pty/nr"),
        "file_nr": read("/proc/sys/fs/file-nr"),
        "loadavg": read("/proc/loadavg"),
        "processes": read("/proc/stat", field("processes")),
        "mem_free": read("/proc/meminfo", field("MemFree")),
        "locks": read("/proc/locks"),
        "vmstat": read("/proc/vmstat", field("pgfault")),
        "sysinfo_procs": sysinfo_procs(),
        "syslog": call("syslog", 10, None, 0),  # SYSLOG_ACTION_SIZE_BUFFER
        "sync": call("sync"),
        "syncfs": call("syncfs", 0),
        "flock_shared": attempt(try_lock),
        "inotify": attempt(lambda: ctypes.CDLL(None, use_errno=True).inotify_init() >= 0 or
                           (_ for _ in ()).throw(OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno())))),
    }


for line in sys.stdin:
    command = line.strip()
    out = {}
    if command == "pty":
        out["openpty"] = attempt(lambda: os.openpty() and "opened")
    if command == "hold":
        f = open(SHARED, "rb")
        fcntl.flock(f, fcntl.LOCK_EX)
        held.append(f)
    out.update(readings())
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
