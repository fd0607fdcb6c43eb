"""The live pair, ``status`` and ``wait`` (csift §6.13, §6.14): what a session is doing NOW.

Beside the forensic engines, on the same core: the registry rows, the owner-pid probe,
the tail state machine, the children's lane states, the task list, the background-task
scan, the last messages, the verdict, and wait's conditions and loop. psutil (the pid
probe) and watchfiles (wait's waker) are imported only where they are used.
"""
