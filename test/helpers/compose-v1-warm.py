"""
Runs Debian's docker-compose v1 client (the same installed `compose` package and `main()` that
/usr/bin/docker-compose runs) many times without paying its start-up each time: this process imports
the client once and never runs it; each request is answered by a forked child, a fresh copy of that
interpreter, which takes the request's working directory, environment and arguments, runs `main()`
as the entry script does, and exits. Spawning the client costs ~0.3 CPU-s (mostly imports); a fork
~0.02. Used by test/helpers/compose-v1.ts.

Protocol: one JSON request a line on stdin, {"cwd", "env", "args", "out", "err"} (out/err: files the
child's stdout and stderr go to); one JSON answer a line on stdout, {"status"} (the exit status).
"""
import json
import os
import sys

from compose.cli.main import main


def run(request):
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            out = os.open(request['out'], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            err = os.open(request['err'], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out, 1)
            os.dup2(err, 2)
            os.chdir(request['cwd'])
            os.environ.clear()
            os.environ.update(request['env'])
            sys.argv = ['docker-compose', *request['args']]
            try:
                main()
                status = 0
            except SystemExit as exit:
                status = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status)


for line in sys.stdin:
    answer = {'status': run(json.loads(line))}
    sys.stdout.write(json.dumps(answer) + '\n')
    sys.stdout.flush()
