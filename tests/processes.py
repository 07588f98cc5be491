"""Helpers for the tests that check a command leaves no process behind: which processes of a
group still run (a zombie has ended, whoever reaps it)."""

from __future__ import annotations

import os

import psutil


def alive(process: psutil.Process) -> bool:
    """Whether a process still runs (a zombie has ended: only its exit status is left)."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def group_members(group: int) -> list[psutil.Process]:
    """The running processes of a process group."""
    members = []
    for process in psutil.process_iter():
        try:
            if os.getpgid(process.pid) == group and alive(process):
                members.append(process)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return members
