#!/usr/bin/python3
"""run_deep.py SCRIPT ARGS... : runs a Python script with room for deep recursion.

The Cube checker and reader walk call trees recursively; the tests produce trees
10,000 levels deep (recursion test), deeper than Python's default limit and C stack
allow. This runs the script in a thread with a large stack and a high recursion limit,
unchanged, and exits with its exit status.
"""
import runpy
import sys
import threading
import traceback

status = [0]


def run():
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as e:
        status[0] = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # a crash of the script is a failure, never a pass
        traceback.print_exc()
        status[0] = 1


sys.argv = sys.argv[1:]
sys.setrecursionlimit(1000000)
threading.stack_size(1024 * 1024 * 1024)
t = threading.Thread(target=run)
t.start()
t.join()
sys.exit(status[0])
