"""`survey field ...` that kills itself with SIGKILL right after its Nth response is committed, before the
respondent hears back (and with the other respondents' requests in flight): the worst moment for a crash.

    python dying_server.py N field STUDY --port 0 --json
"""

import os
import signal
import sys

from survey.field import storage

after = int(sys.argv[1])
committed = 0
complete = storage.FieldStore.complete


def complete_then_die(self, *args, **kwargs):
    global committed
    outcome = complete(self, *args, **kwargs)
    if outcome == "complete":
        committed += 1
        if committed == after:
            os.kill(os.getpid(), signal.SIGKILL)
    return outcome


storage.FieldStore.complete = complete_then_die

if __name__ == "__main__":
    from survey.cli import main

    main(sys.argv[2:])
