#!/usr/bin/python3 -IS
# `docker-compose` for the integration tests (first on their PATH; never part of the product): hands
# this call (its stdin/stdout/stderr and working directory as fds, umask, signal mask and ignored
# signals, arguments, whole environment) to a compose fork server (compose-forkserver.py), which runs
# the real client's main() in a forked child; exits as that child did (its status, or its signal).
# SIGTERM, SIGINT, SIGHUP and SIGQUIT are forwarded to the child; when this process dies, the server
# kills the child's group. A call whose locale and PYTHON* variables no server started with, or with a
# user site-packages directory, runs /usr/bin/docker-compose itself (and is counted in COLD_LOG).
# Written into a private directory by compose-forkserver.ts, which fills in the four lines below.
# Only builtin modules (no `socket`: it imports enum and selectors), so that it starts in ~0.01 CPU-s.
import _signal
import _socket
import array
import os
import sys

SERVERS = {}  # the server's socket by its start-up variables ('NAME=value' lines)
USER_SITE = ''  # where the interpreter looks for a user's site-packages below its base (~/.local)
COLD_LOG = ''
REAL = '/usr/bin/docker-compose'  # the entry script the servers imported
FORWARDED = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, _signal.SIGQUIT)


def run_real(reason):
    fd = os.open(COLD_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.write(fd, reason + b'\n')
    os.close(fd)
    os.execv(REAL, [REAL, *sys.argv[1:]])


def user_site(environ):
    """The user site-packages directory the real interpreter would add to sys.path, if any."""
    if b'PYTHONNOUSERSITE' in environ or os.getuid() != os.geteuid() or os.getgid() != os.getegid():
        return None
    base = environ.get(b'PYTHONUSERBASE') or os.path.join(environ.get(b'HOME') or os.fsencode(
        os.path.expanduser('~')), b'.local')
    return os.path.join(base, os.fsencode(USER_SITE))


def main():
    # the environment as exec'd: this interpreter's start-up may have added LC_CTYPE (PEP 538)
    with open('/proc/self/environ', 'rb') as block:
        environ = dict(entry.split(b'=', 1) for entry in block.read().split(b'\0') if b'=' in entry)
    key = b'\n'.join(b'%s=%s' % entry for entry in sorted(
        entry for entry in environ.items()
        if entry[0] in (b'LANG', b'LC_ALL', b'LC_CTYPE') or entry[0].startswith(b'PYTHON')))
    path = SERVERS.get(os.fsdecode(key))
    if path is None:
        run_real(b'start-up variables no server has: ' + key.replace(b'\n', b' '))
    site = user_site(environ)
    if site is not None and os.path.isdir(site):
        run_real(b'user site-packages ' + site)
    try:
        fds = [0, 1, 2, os.open('.', os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)]
        for fd in fds[:3]:
            os.fstat(fd)
    except OSError as error:  # a closed stdio fd, or no working directory: what the real one makes of it
        run_real(b'no fd to pass: ' + os.fsencode(str(error)))
    blocked = _signal.pthread_sigmask(_signal.SIG_BLOCK, FORWARDED)  # until the request is sent
    ignored = [n for n in range(1, _signal.NSIG)
               if n not in (_signal.SIGKILL, _signal.SIGSTOP) and _signal.getsignal(n) == _signal.SIG_IGN]
    umask = os.umask(0)
    os.umask(umask)
    fields = [b'%d' % umask, b','.join(b'%d' % n for n in sorted(blocked)),
              b','.join(b'%d' % n for n in ignored), b'%d' % (len(sys.argv) - 1),
              *(os.fsencode(arg) for arg in sys.argv[1:]),
              *(b'%s=%s' % entry for entry in environ.items())]
    body = b'\0'.join(fields)
    message = b'%08d' % len(body) + body
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.connect(path)
        sent = connection.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array('i', fds))])
        connection.sendall(message[sent:])
    except OSError as error:
        sys.stderr.write(f'docker-compose (test shim): the compose fork server at {path} does not answer: '
                         f'{error} (VAULT_TEST_COMPOSE_FORKSERVER=0 runs the real binary)\n')
        os._exit(1)
    os.close(fds[3])

    def forward(number, _frame):
        try:
            connection.sendall(b'K%d\n' % number)
        except OSError:
            pass

    for number in FORWARDED:
        if number not in ignored:
            _signal.signal(number, forward)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, blocked)
    answer = b''
    while True:
        data = connection.recv(4096)
        if not data:
            break
        answer += data
    status = None
    for line in answer.split(b'\n'):
        if line == b'E':
            run_real(b'the server refused the start-up variables: ' + key.replace(b'\n', b' '))
        if line.startswith(b'S'):
            status = int(line[1:])
    if status is None:
        sys.stderr.write(f'docker-compose (test shim): the compose fork server at {path} closed the call '
                         'without an exit status\n')
        os._exit(1)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        _signal.signal(number, _signal.SIG_DFL)
        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


main()
