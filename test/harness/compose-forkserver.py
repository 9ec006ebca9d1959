"""
A fork server for Debian's docker-compose v1 client (1.29, Python), so that the integration tests drive
the real client without paying its start-up (~0.35 CPU-s a call, nearly all of it imports) each time.
It imports the client once, through /usr/bin/docker-compose's own entry script (its `load_entry_point`
loads the installed `compose` package's `compose.cli.main.main` into this /usr/bin/python3), and never
runs it itself. Each call of the `docker-compose` shim (compose-forkserver-shim.py, first on the
integration tests' PATH) is answered by a forked child, a fresh copy of this interpreter, which takes
the caller's stdin, stdout, stderr and working directory (its fds, passed over the socket), umask,
signal mask and ignored signals, arguments and whole environment, then runs the entry script itself
as __main__ (`sys.exit(load_entry_point(...)())`: the same main(), found already imported) and does
what the interpreter does on exit. The client's code is the real one; only its imports are done once.

What the interpreter decides at start-up from the environment (the locale and PYTHON* variables) is
this server's: a server answers only calls whose locale and PYTHON* variables are the ones it started
with (the shim picks the server by them and runs /usr/bin/docker-compose itself for any other). The
check that this is the real client: test/harness/compose-forkserver.ts compares the shim's `version`
and `config` of a fixture with /usr/bin/docker-compose's, byte for byte, before any test runs.

Usage: compose-forkserver.py SOCKET [ENTRY_SCRIPT]; prints `ready <user site-packages below a user
base>` when it listens, `calls <n>` when it stops. Protocol, per connection: the shim sends an 8-digit
length, then that many bytes (fields separated by NUL: umask, blocked signals, ignored signals, argc,
the arguments after argv[0], then the environment's NAME=value entries) with its fds 0, 1, 2 and an
O_PATH fd of its working directory (SCM_RIGHTS); the server answers `P<pid>\n` (the compose child),
later `S<wait status>\n`, or `E\n` for start-up variables not its own. The shim sends `K<signal>\n`
to have a signal sent to the child. When the connection closes before the child ended (the shim was
killed), the child's process group is killed. On SIGTERM the server kills its children's groups and
exits.
"""
import array
import atexit
import gc
import io
import os
import runpy
import selectors
import signal
import socket
import sys

ENTRY_SCRIPT = sys.argv[2] if len(sys.argv) > 2 else '/usr/bin/docker-compose'  # another: the helper's own test
STARTUP_NAMES = (b'LANG', b'LC_ALL', b'LC_CTYPE')


def startup_key(environ):
    """The variables the interpreter's start-up reads (locale, PYTHON*), as the shim computes them."""
    return sorted((name, value) for name, value in environ.items()
                  if name in STARTUP_NAMES or name.startswith(b'PYTHON'))


def import_client():
    """Imports compose's main() as the entry script finds it (its own load_entry_point), with the entry
    script's sys.path[0]; the children run the entry script itself, which then finds it imported."""
    sys.path[0] = os.path.dirname(ENTRY_SCRIPT)
    entry = runpy.run_path(ENTRY_SCRIPT, run_name='docker_compose_entry_script')
    entry['load_entry_point'](entry['__requires__'], 'console_scripts', 'docker-compose')


def read_request(connection):
    """The shim's fields and its four fds (0, 1, 2, working directory)."""
    connection.settimeout(10)
    data, fds, _, _ = socket.recv_fds(connection, 65536, 4)
    while len(data) < 8 or len(data) < 8 + int(data[:8]):
        more = connection.recv(65536)
        if not more:
            raise ValueError('request cut short')
        data += more
    connection.settimeout(None)
    if len(fds) != 4:
        raise ValueError(f'expected 4 fds, got {len(fds)}')
    fields = data[8:8 + int(data[:8])].split(b'\0')
    umask, blocked, ignored, argc = fields[:4]
    argv = fields[4:4 + int(argc)]
    environ = dict(entry.split(b'=', 1) for entry in fields[4 + int(argc):])
    numbers = lambda text: [int(n) for n in text.split(b',') if n]
    return {'umask': int(umask), 'blocked': numbers(blocked), 'ignored': numbers(ignored),
            'argv': argv, 'environ': environ, 'fds': fds}


class Server:
    def __init__(self, path):
        with open('/proc/self/environ', 'rb') as environ:  # as exec'd, before the interpreter's changes
            started_with = dict(entry.split(b'=', 1) for entry in environ.read().split(b'\0') if b'=' in entry)
        self.key = startup_key(started_with)
        # what the interpreter added at start-up (PEP 538 sets LC_CTYPE=C.UTF-8 in a C locale)
        self.coerced = os.environb.get(b'LC_CTYPE') if b'LC_CTYPE' not in started_with else None
        self.buffered_stdio = not os.environ.get('PYTHONUNBUFFERED')
        self.stdio = [(stream.encoding, stream.errors) for stream in (sys.stdin, sys.stdout, sys.stderr)]
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, ('accept', None))
        self.children = {}  # pid -> {'connection', 'pidfd', 'ended'}
        self.calls = 0

    def serve(self):
        signal.signal(signal.SIGTERM, lambda *_: self.stop())
        import site  # what a user's site-packages would be below its base (the shim checks it per call)
        print('ready', os.path.relpath(site.getusersitepackages(), site.getuserbase()), flush=True)
        while True:
            for key, _ in self.selector.select():
                kind, pid = key.data
                if kind == 'accept':
                    self.accept()
                elif kind == 'shim':
                    self.from_shim(pid)
                else:
                    self.reap(pid)

    def stop(self):
        for pid, child in self.children.items():
            if not child['ended']:
                kill_group(pid)
        print('calls', self.calls, flush=True)
        sys.exit(0)

    def accept(self):
        connection, _ = self.listener.accept()
        uid = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        try:
            if array.array('i', uid)[1] != os.getuid():
                raise ValueError('caller of another user')
            request = read_request(connection)
        except (OSError, ValueError) as error:
            print(f'compose fork server: request refused: {error}', file=sys.stderr, flush=True)
            connection.close()
            return
        if startup_key(request['environ']) != self.key:
            connection.sendall(b'E\n')  # the shim runs the real binary
            connection.close()
            for fd in request['fds']:
                os.close(fd)
            return
        self.calls += 1
        pid = os.fork()
        if pid == 0:
            self.child(request)
        try:
            os.setpgid(pid, pid)  # as the child does: its group exists before the shim can go away
        except OSError:
            pass
        for fd in request['fds']:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        self.children[pid] = {'connection': connection, 'pidfd': pidfd, 'ended': False}
        self.selector.register(connection, selectors.EVENT_READ, ('shim', pid))
        self.selector.register(pidfd, selectors.EVENT_READ, ('child', pid))
        connection.sendall(b'P%d\n' % pid)

    def from_shim(self, pid):
        child = self.children.get(pid)
        if child is None or child['connection'] is None:  # reaped earlier in the same round of events
            return
        data = child['connection'].recv(4096)
        if not data:  # the shim is gone: so is its compose
            self.selector.unregister(child['connection'])
            child['connection'].close()
            child['connection'] = None
            kill_group(pid)
            return
        for line in data.split(b'\n'):
            if line.startswith(b'K'):
                try:
                    os.kill(pid, int(line[1:]))  # not reaped yet: the pid is still this child's
                except (OSError, ValueError):
                    pass

    def reap(self, pid):
        child = self.children.pop(pid)
        _, status = os.waitpid(pid, 0)
        self.selector.unregister(child['pidfd'])
        os.close(child['pidfd'])
        if child['connection'] is not None:
            self.selector.unregister(child['connection'])
            try:
                child['connection'].sendall(b'S%d\n' % status)
            except OSError:
                pass
            child['connection'].close()

    def child(self, request):
        """In the forked child: become the caller's docker-compose and run the entry script; never returns."""
        status = 1
        try:
            os.setpgid(0, 0)  # its own group, killed whole when the shim goes away
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            stdin, stdout, stderr, cwd = request['fds']
            for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
                os.dup2(fd, target)
            os.fchdir(cwd)
            os.closerange(3, os.sysconf('SC_OPEN_MAX'))
            os.umask(request['umask'])
            os.environb.clear()
            os.environb.update(request['environ'])
            if self.coerced is not None and b'LC_CTYPE' not in request['environ']:
                os.environb[b'LC_CTYPE'] = self.coerced
            self.take_signals(request)
            self.fresh_stdio()
            # the entry script's sys.argv (the kernel runs `python3 /usr/bin/docker-compose ARGS...`)
            sys.argv = [ENTRY_SCRIPT, *(os.fsdecode(arg) for arg in request['argv'])]
            status = run_entry_script()
        except BaseException as error:  # before the entry script ran: say so where the caller looks
            os.write(2, f'compose fork server: the call could not start: {error!r}\n'.encode())
        finally:
            os._exit(status)

    def take_signals(self, request):
        """The caller's ignored signals and mask, the rest as a fresh interpreter has them."""
        for number in request['ignored']:
            if number not in (signal.SIGKILL, signal.SIGSTOP):
                signal.signal(number, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_SETMASK, request['blocked'])

    def fresh_stdio(self):
        """sys.stdin/stdout/stderr on the caller's fds, built as CPython 3.11's create_stdio builds them."""
        for fd, name, attribute in ((0, '<stdin>', 'stdin'), (1, '<stdout>', 'stdout'), (2, '<stderr>', 'stderr')):
            write = fd != 0
            buffering = 0 if write and not self.buffered_stdio else -1
            buffer = io.open(fd, 'wb' if write else 'rb', buffering, closefd=False)
            raw = buffer if buffering == 0 else buffer.raw
            if raw is not buffer:
                raw.name = name
            line_buffering = self.buffered_stdio and (raw.isatty() or fd == 2)
            encoding, errors = self.stdio[fd]
            stream = io.TextIOWrapper(buffer, encoding, errors, '\n', line_buffering, not self.buffered_stdio)
            stream.mode = 'w' if write else 'r'
            setattr(sys, attribute, stream)
            setattr(sys, f'__{attribute}__', stream)


def run_entry_script():
    """The entry script run as `python3 /usr/bin/docker-compose` runs it (as __main__: its own
    `sys.exit(load_entry_point(...)())`, compose already imported), then what the interpreter does on
    exit; returns the exit status it would have. A traceback starts at the entry script, as there."""
    interrupted = False
    try:
        runpy.run_path(ENTRY_SCRIPT, run_name='__main__')
        status = 0
    except SystemExit as exit:
        status = system_exit_status(exit)
    except BaseException as error:
        error.__traceback__ = from_entry_script(error.__traceback__)
        sys.excepthook(type(error), error, error.__traceback__)
        status, interrupted = 1, isinstance(error, KeyboardInterrupt)
    status = finalize(status)
    if interrupted:  # as CPython 3.8+: die by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status


def from_entry_script(traceback):
    """The traceback without this server's and runpy's frames: from the entry script's own."""
    while traceback is not None and traceback.tb_frame.f_code.co_filename != ENTRY_SCRIPT:
        traceback = traceback.tb_next
    return traceback


def system_exit_status(exit):
    """Py_HandleSystemExit: None -> 0, an int as it is, anything else printed to stderr -> 1."""
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code & 0xff
    try:
        print(exit.code, file=sys.stderr)
    except Exception:
        pass
    return 1


def finalize(status):
    """Py_FinalizeEx's steps a program can see: join non-daemon threads, atexit, flush stdout (120 on failure)."""
    threading = sys.modules.get('threading')
    if threading is not None:
        threading._shutdown()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except Exception:
        status = 120
    try:
        sys.stderr.flush()
    except Exception:
        pass
    return status


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == '__main__':
    socket_path = sys.argv[1]
    import_client()
    server = Server(socket_path)
    gc.collect()
    gc.freeze()  # imported objects stay shared with the children (no copy on the first collection)
    server.serve()
