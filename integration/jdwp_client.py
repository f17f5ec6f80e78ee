"""A raw JDWP debugger client for the integration tests (stdlib sockets, no JDI).

Tests that need exact error codes, broken packets or what JDI hides speak JDWP
through this module:

    c = Client(debuggee.port, timeout=30)        # handshake + IDSizes
    main = c.thread_named("main")
    r = c.ok(ThreadReference.Frames, c.object_id(main) + i32(0) + i32(-1))
    frames = [(r.id("frame"), r.location()) for _ in range(r.int())]
    assert c.error(StringReference.Value, c.object_id(main)) == Error.INVALID_STRING

Commands, error codes and the spec's constants (EventKind, SuspendPolicy,
ModKind, Tag, TypeTag, ThreadStatus, ClassStatus, StepDepth, StepSize,
InvokeOptions) carry the spec's names (jdwp-layouts.md) and are declared here
only, so an assertion message reads "ThreadReference.Frames (11/6) failed:
INVALID_THREAD (10)". IDs are read and written with the sizes the VM reported
in IDSizes.

Whatever else speaks JDWP in Python (a relay, a probe of a port, a test that
sends broken packets, the benchmarks) frames packets with the module-level
helpers: handshake(), handshake_answered(), recv_exact(), read_packet(),
command_header(), reply_header(), command_packet(), parse_header(),
Packet.to_bytes(), tagged() / untagged().
"""

from __future__ import annotations

import collections
import enum
import socket
import struct
from typing import NamedTuple

HANDSHAKE = b"JDWP-Handshake"
HEADER_SIZE = 11
REPLY_FLAG = 0x80
ID_KINDS = ("field", "method", "object", "referenceType", "frame")  # IDSizes reply order


class Error(enum.IntEnum):
    """JDWP error codes (jdwp-layouts.md, Constants: Error)."""
    NONE = 0
    INVALID_THREAD = 10
    INVALID_THREAD_GROUP = 11
    INVALID_PRIORITY = 12
    THREAD_NOT_SUSPENDED = 13
    THREAD_SUSPENDED = 14
    THREAD_NOT_ALIVE = 15
    INVALID_OBJECT = 20
    INVALID_CLASS = 21
    CLASS_NOT_PREPARED = 22
    INVALID_METHODID = 23
    INVALID_LOCATION = 24
    INVALID_FIELDID = 25
    INVALID_FRAMEID = 30
    NO_MORE_FRAMES = 31
    OPAQUE_FRAME = 32
    NOT_CURRENT_FRAME = 33
    TYPE_MISMATCH = 34
    INVALID_SLOT = 35
    DUPLICATE = 40
    NOT_FOUND = 41
    INVALID_MODULE = 42
    INVALID_MONITOR = 50
    NOT_MONITOR_OWNER = 51
    INTERRUPT = 52
    INVALID_CLASS_FORMAT = 60
    CIRCULAR_CLASS_DEFINITION = 61
    FAILS_VERIFICATION = 62
    ADD_METHOD_NOT_IMPLEMENTED = 63
    SCHEMA_CHANGE_NOT_IMPLEMENTED = 64
    INVALID_TYPESTATE = 65
    HIERARCHY_CHANGE_NOT_IMPLEMENTED = 66
    DELETE_METHOD_NOT_IMPLEMENTED = 67
    UNSUPPORTED_VERSION = 68
    NAMES_DONT_MATCH = 69
    CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 70
    METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED = 71
    CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED = 72
    NOT_IMPLEMENTED = 99
    NULL_POINTER = 100
    ABSENT_INFORMATION = 101
    INVALID_EVENT_TYPE = 102
    ILLEGAL_ARGUMENT = 103
    OUT_OF_MEMORY = 110
    ACCESS_DENIED = 111
    VM_DEAD = 112
    INTERNAL = 113
    UNATTACHED_THREAD = 115
    INVALID_TAG = 500
    ALREADY_INVOKING = 502
    INVALID_INDEX = 503
    INVALID_LENGTH = 504
    INVALID_STRING = 506
    INVALID_CLASS_LOADER = 507
    INVALID_ARRAY = 508
    TRANSPORT_LOAD = 509
    TRANSPORT_INIT = 510
    NATIVE_METHOD = 511
    INVALID_COUNT = 512


# ---- constants (jdwp-layouts.md, Constants), under the spec's names ----
# Declared here only: tests import them (EventKind.BREAKPOINT, SuspendPolicy.ALL, ...)
# and declare no numbers of the protocol of their own.

class EventKind(enum.IntEnum):
    SINGLE_STEP = 1
    BREAKPOINT = 2
    FRAME_POP = 3
    EXCEPTION = 4
    USER_DEFINED = 5
    THREAD_START = 6
    THREAD_DEATH = 7
    CLASS_PREPARE = 8
    CLASS_UNLOAD = 9
    CLASS_LOAD = 10
    FIELD_ACCESS = 20
    FIELD_MODIFICATION = 21
    EXCEPTION_CATCH = 30
    METHOD_ENTRY = 40
    METHOD_EXIT = 41
    METHOD_EXIT_WITH_RETURN_VALUE = 42
    MONITOR_CONTENDED_ENTER = 43
    MONITOR_CONTENDED_ENTERED = 44
    MONITOR_WAIT = 45
    MONITOR_WAITED = 46
    VM_START = 90
    VM_DEATH = 99


class SuspendPolicy(enum.IntEnum):
    NONE = 0
    EVENT_THREAD = 1
    ALL = 2


class ModKind(enum.IntEnum):
    """EventRequest.Set modifier kinds (modKind), named as the spec's modifiers."""
    Count = 1
    Conditional = 2
    ThreadOnly = 3
    ClassOnly = 4
    ClassMatch = 5
    ClassExclude = 6
    LocationOnly = 7
    ExceptionOnly = 8
    FieldOnly = 9
    Step = 10
    InstanceOnly = 11
    SourceNameMatch = 12
    PlatformThreadsOnly = 13  # JDK 21+


class ThreadStatus(enum.IntEnum):
    ZOMBIE = 0
    RUNNING = 1
    SLEEPING = 2
    MONITOR = 3
    WAIT = 4


class SuspendStatus(enum.IntEnum):
    SUSPEND_STATUS_SUSPENDED = 0x1


class ClassStatus(enum.IntFlag):
    VERIFIED = 1
    PREPARED = 2
    INITIALIZED = 4
    ERROR = 8


class TypeTag(enum.IntEnum):
    CLASS = 1
    INTERFACE = 2
    ARRAY = 3


class Tag(enum.IntEnum):
    """Value tags, as the bytes on the wire (Tag.OBJECT == ord("L"))."""
    ARRAY = ord("[")
    BYTE = ord("B")
    CHAR = ord("C")
    OBJECT = ord("L")
    FLOAT = ord("F")
    DOUBLE = ord("D")
    INT = ord("I")
    LONG = ord("J")
    SHORT = ord("S")
    VOID = ord("V")
    BOOLEAN = ord("Z")
    STRING = ord("s")
    THREAD = ord("t")
    THREAD_GROUP = ord("g")
    CLASS_LOADER = ord("l")
    CLASS_OBJECT = ord("c")


class StepDepth(enum.IntEnum):
    INTO = 0
    OVER = 1
    OUT = 2


class StepSize(enum.IntEnum):
    MIN = 0
    LINE = 1


class InvokeOptions(enum.IntFlag):
    INVOKE_SINGLE_THREADED = 0x01
    INVOKE_NONVIRTUAL = 0x02


def error_name(code: int) -> str:
    """'INVALID_THREAD (10)'; codes outside the spec stay numbers."""
    try:
        return f"{Error(code).name} ({code})"
    except ValueError:
        return f"error {code}"


class Command(NamedTuple):
    command_set: int
    command: int
    name: str  # "ThreadReference.Frames"

    def __str__(self) -> str:
        return f"{self.name} ({self.command_set}/{self.command})"

    @property
    def key(self) -> tuple:
        """(command set, command), as Packet.kind has it."""
        return self.command_set, self.command


class CommandSet:
    """Base of the command set classes below: each int class attribute becomes a
    Command named after the set and the attribute, so every command is written once."""

    def __init_subclass__(cls, set_id: int, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if isinstance(value, int) and not name.startswith("_"):
                setattr(cls, name, Command(set_id, value, f"{cls.__name__}.{name}"))


class VirtualMachine(CommandSet, set_id=1):
    Version = 1
    ClassesBySignature = 2
    AllClasses = 3
    AllThreads = 4
    TopLevelThreadGroups = 5
    Dispose = 6
    IDSizes = 7
    Suspend = 8
    Resume = 9
    Exit = 10
    CreateString = 11
    Capabilities = 12
    ClassPaths = 13
    DisposeObjects = 14
    HoldEvents = 15
    ReleaseEvents = 16
    CapabilitiesNew = 17
    RedefineClasses = 18
    SetDefaultStratum = 19
    AllClassesWithGeneric = 20
    InstanceCounts = 21
    AllModules = 22


class ReferenceType(CommandSet, set_id=2):
    Signature = 1
    ClassLoader = 2
    Modifiers = 3
    Fields = 4
    Methods = 5
    GetValues = 6
    SourceFile = 7
    NestedTypes = 8
    Status = 9
    Interfaces = 10
    ClassObject = 11
    SourceDebugExtension = 12
    SignatureWithGeneric = 13
    FieldsWithGeneric = 14
    MethodsWithGeneric = 15
    Instances = 16
    ClassFileVersion = 17
    ConstantPool = 18
    Module = 19


class ClassType(CommandSet, set_id=3):
    Superclass = 1
    SetValues = 2
    InvokeMethod = 3
    NewInstance = 4


class ArrayType(CommandSet, set_id=4):
    NewInstance = 1


class InterfaceType(CommandSet, set_id=5):
    InvokeMethod = 1


class Method(CommandSet, set_id=6):
    LineTable = 1
    VariableTable = 2
    Bytecodes = 3
    IsObsolete = 4
    VariableTableWithGeneric = 5


# Field (8) has no commands.


class ObjectReference(CommandSet, set_id=9):
    ReferenceType = 1
    GetValues = 2
    SetValues = 3
    MonitorInfo = 5
    InvokeMethod = 6
    DisableCollection = 7
    EnableCollection = 8
    IsCollected = 9
    ReferringObjects = 10


class StringReference(CommandSet, set_id=10):
    Value = 1


class ThreadReference(CommandSet, set_id=11):
    Name = 1
    Suspend = 2
    Resume = 3
    Status = 4
    ThreadGroup = 5
    Frames = 6
    FrameCount = 7
    OwnedMonitors = 8
    CurrentContendedMonitor = 9
    Stop = 10
    Interrupt = 11
    SuspendCount = 12
    OwnedMonitorsStackDepthInfo = 13
    ForceEarlyReturn = 14
    IsVirtual = 15


class ThreadGroupReference(CommandSet, set_id=12):
    Name = 1
    Parent = 2
    Children = 3


class ArrayReference(CommandSet, set_id=13):
    Length = 1
    GetValues = 2
    SetValues = 3


class ClassLoaderReference(CommandSet, set_id=14):
    VisibleClasses = 1


class EventRequest(CommandSet, set_id=15):
    Set = 1
    Clear = 2
    ClearAllBreakpoints = 3


class StackFrame(CommandSet, set_id=16):
    GetValues = 1
    SetValues = 2
    ThisObject = 3
    PopFrames = 4


class ClassObjectReference(CommandSet, set_id=17):
    ReflectedType = 1


class ModuleReference(CommandSet, set_id=18):
    Name = 1
    ClassLoader = 2


class Event(CommandSet, set_id=64):
    Composite = 100


class Probe(CommandSet, set_id=128):
    """jdwpx's own set (jdwp/commands/probe.h); the stock agent answers NOT_IMPLEMENTED."""
    Set = 1
    Clear = 2
    List = 3
    Log = 100  # the VM sends Log, Snapshot and Notice
    Snapshot = 101
    Notice = 102


PROBE_OUTPUT = {Probe.Log.key, Probe.Snapshot.key, Probe.Notice.key}


class ProbeKind(enum.IntEnum):
    LOG = 1
    SNAPSHOT = 2


class ProbeState(enum.IntEnum):
    ARMED = 1
    DEFERRED = 2
    PAUSED = 3
    DONE = 4


class NoticeKind(enum.IntEnum):
    EVALUATION_ERROR = 1
    PAUSED = 2
    ARMED = 3
    DONE = 4
    RATE_LIMITED = 5
    REFUSED = 6


def command_label(command) -> str:
    """A Command prints with its name; a bare (set, command) pair, as bad-input
    tests send, as 'set/command'."""
    return str(command) if isinstance(command, Command) else f"{command[0]}/{command[1]}"


# ---- encoding ----

# Value tags whose value is an object ID (jdwp-layouts.md, Constants: Tag).
OBJECT_TAGS = "L[stglc"


def i32(value: int) -> bytes:
    return struct.pack(">i", value)


def i64(value: int) -> bytes:
    return struct.pack(">q", value)


def jdwp_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return i32(len(data)) + data


# struct formats of the primitive values by tag (jdwp-layouts.md, Constants: Tag).
PRIMITIVE_FORMATS = {"Z": ">?", "B": ">b", "C": ">H", "S": ">h", "I": ">i", "J": ">q", "F": ">f", "D": ">d"}


def untagged(tag: str, value, object_size: int = 8) -> bytes:
    """An untagged value of the type `tag` names (a character): object values
    are IDs of `object_size` bytes; char takes its UTF-16 code unit as an int."""
    if tag in OBJECT_TAGS:
        return id_bytes(value, object_size)
    return struct.pack(PRIMITIVE_FORMATS[tag], value)


def tagged(tag: str, value, object_size: int = 8) -> bytes:
    """A tagged value: the tag byte, then the value as untagged() writes it."""
    return tag.encode() + untagged(tag, value, object_size)


def id_bytes(value: int, size: int) -> bytes:
    """An ID of `size` bytes; negative or oversized values wrap, so tests can send any bits."""
    return (value & ((1 << (8 * size)) - 1)).to_bytes(size, "big")


# ---- decoding ----


class Reader:
    """Decodes reply data front to back; IDs are read with the VM's IDSizes.

    Works on a memoryview, so huge replies (10M-element arrays) are not copied
    until a value is taken out."""

    def __init__(self, data, sizes: dict | None = None):
        self._data = memoryview(data)
        self._pos = 0
        self._sizes = sizes or dict.fromkeys(ID_KINDS, 8)

    @property
    def data(self) -> bytes:
        """The whole reply data, to compare two replies byte for byte."""
        return bytes(self._data)

    def take(self, n: int) -> memoryview:
        if self._pos + n > len(self._data):
            raise AssertionError(f"reply too short: need {n} bytes at {self._pos} of {len(self._data)}")
        chunk = self._data[self._pos:self._pos + n]
        self._pos += n
        return chunk

    def raw(self, n: int) -> bytes:
        return bytes(self.take(n))

    def at_end(self) -> bool:
        return self._pos == len(self._data)

    def byte(self) -> int:
        return self.take(1)[0]

    def boolean(self) -> bool:
        return self.byte() != 0

    def int(self) -> int:
        return struct.unpack(">i", self.take(4))[0]

    def long(self) -> int:
        return struct.unpack(">q", self.take(8))[0]

    def id(self, kind: str = "object") -> int:
        """kind: one of ID_KINDS (moduleIDs, threadIDs, ... are "object")."""
        return int.from_bytes(self.take(self._sizes[kind]), "big")

    def raw_string(self) -> bytes:
        """A string's UTF-8 bytes as sent (to check the exact encoding)."""
        return self.raw(self.int())

    def string(self) -> str:
        return self.raw_string().decode("utf-8")

    def location(self) -> tuple:
        """-> (typeTag, classID, methodID, index)."""
        return self.byte(), self.id("referenceType"), self.id("method"), self.long()

    def value(self, tag: str | None = None) -> tuple:
        """A tagged value, or an untagged one when `tag` is given -> (tag as a
        character, Python value); object values are their IDs (0 = null), float
        and double are decoded, char is a one-character string."""
        tag = chr(self.byte()) if tag is None else tag
        if tag in OBJECT_TAGS:
            return tag, self.id()
        if tag == "Z":
            return tag, self.boolean()
        if tag == "B":
            return tag, struct.unpack(">b", self.take(1))[0]
        if tag == "C":
            return tag, chr(struct.unpack(">H", self.take(2))[0])
        if tag == "S":
            return tag, struct.unpack(">h", self.take(2))[0]
        if tag == "I":
            return tag, self.int()
        if tag == "J":
            return tag, self.long()
        if tag == "F":
            return tag, struct.unpack(">f", self.take(4))[0]
        if tag == "D":
            return tag, struct.unpack(">d", self.take(8))[0]
        if tag == "V":
            return tag, None
        raise AssertionError(f"unknown value tag {tag!r}")


# ---- framing (sockets of any kind: the Client's, a relay's, a test's own) ----

class ConnectionClosed(AssertionError):
    """The VM closed the connection (an AssertionError: unexpected unless a test waits for it)."""


class Packet(NamedTuple):
    id: int
    flags: int
    kind: object  # reply: the error code; command: (command set, command)
    data: bytearray

    @property
    def is_reply(self) -> bool:
        return bool(self.flags & REPLY_FLAG)

    def to_bytes(self) -> bytes:
        """The packet as it was on the wire (header + data)."""
        length = HEADER_SIZE + len(self.data)
        if self.is_reply:
            return reply_header(length, self.id, self.kind, self.flags) + self.data
        return command_header(length, self.id, self.kind, self.flags) + self.data


def command_header(length: int, packet_id: int, command, flags: int = 0) -> bytes:
    """A command packet's header. `length` is written as given (wrapped to 32 bits)
    and `flags` may be anything, so bad-input tests build broken headers here too;
    `command` is a Command or any (command set, command) pair."""
    return struct.pack(">IIBBB", length & 0xFFFFFFFF, packet_id, flags, command[0], command[1])


def reply_header(length: int, packet_id: int, error: int = Error.NONE, flags: int = REPLY_FLAG) -> bytes:
    return struct.pack(">IIBH", length & 0xFFFFFFFF, packet_id, flags, error)


def command_packet(packet_id: int, command, data: bytes = b"") -> bytes:
    return command_header(HEADER_SIZE + len(data), packet_id, command) + data


def parse_header(header) -> tuple:
    """11 header bytes -> (length, packet id, flags, kind): kind is the error code
    of a reply, the (command set, command) pair of a command."""
    length, packet_id, flags = struct.unpack(">IIB", bytes(header[:9]))
    if flags & REPLY_FLAG:
        return length, packet_id, flags, struct.unpack(">H", bytes(header[9:11]))[0]
    return length, packet_id, flags, (header[9], header[10])


def recv_exact(sock: socket.socket, n: int) -> bytearray:
    """Exactly n bytes; ConnectionClosed at EOF before them."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise ConnectionClosed(f"connection closed (EOF after {got} of {n} bytes)")
        got += k
    return buf


def read_packet(sock: socket.socket) -> Packet:
    """The next whole packet; ConnectionClosed at EOF."""
    length, packet_id, flags, kind = parse_header(recv_exact(sock, HEADER_SIZE))
    if length < HEADER_SIZE:
        raise AssertionError(f"peer sent a packet with length {length}")
    return Packet(packet_id, flags, kind, recv_exact(sock, length - HEADER_SIZE))


def handshake(sock: socket.socket):
    """The debugger's side of the handshake: sends it, expects it back verbatim
    (ConnectionClosed when the peer closes first, AssertionError on other bytes)."""
    sock.sendall(HANDSHAKE)
    answer = bytes(recv_exact(sock, len(HANDSHAKE)))
    if answer != HANDSHAKE:
        raise AssertionError(f"bad handshake answer {answer!r}")


def handshake_answered(host: str, port: int, timeout: float) -> bool:
    """Whether a handshake sent to host:port is answered (False when refused,
    closed, timed out or answered with other bytes)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            handshake(sock)
            return True
    except (OSError, AssertionError):
        return False


# ---- the connection ----


class FieldInfo(NamedTuple):
    id: int
    signature: str
    mod_bits: int


class MethodInfo(NamedTuple):
    id: int
    name: str
    signature: str
    mod_bits: int


class Client:
    """One debugger connection: handshake, IDSizes, numbered commands, replies
    matched by id. Every Event.Composite the VM sends is kept, data only, in
    .events (the history; tests may clear it or pop from it); any other command
    from the VM fails the test. Events that came while a reply was awaited are
    queued: read_event returns them, in order, before it reads the socket."""

    def __init__(self, port: int, timeout: float = 30, host: str = "127.0.0.1",
                 sock: socket.socket | None = None):
        """Connects to host:port, or handshakes on `sock`, a connection the agent
        made (server=n) to a listener of the test's."""
        self.timeout = timeout  # for every read; tests that wait on silence change it for a while
        self.sock = sock if sock is not None else socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.events: list[bytearray] = []
        # Probe.Log/Snapshot/Notice packets (Packet), in arrival order: read_probe_output.
        self.probe_output: collections.deque = collections.deque()
        self._unread: collections.deque[bytearray] = collections.deque()  # came during command()
        self._next_id = 1
        # HotSpot uses 8 for every ID; IDSizes below replaces this before any ID is read.
        self.sizes = dict.fromkeys(ID_KINDS, 8)
        handshake(self.sock)
        r = self.ok(VirtualMachine.IDSizes)
        self.sizes = {kind: r.int() for kind in ID_KINDS}

    def close(self):
        self.sock.close()

    # -- framing --

    def recv_exact(self, n: int) -> bytearray:
        return recv_exact(self.sock, n)

    def read_packet(self) -> Packet:
        return read_packet(self.sock)

    def command_packet(self, command, data: bytes = b"") -> tuple:
        """A command packet with the next id, not sent -> (bytes, packet id): for
        pipelining many commands in one write."""
        packet_id = self._next_id
        self._next_id += 1
        return command_packet(packet_id, command, data), packet_id

    def send_command(self, command, data: bytes = b"") -> int:
        """Sends without waiting for the reply -> the packet id. `command` is a
        Command or any (command set, command) pair."""
        packet, packet_id = self.command_packet(command, data)
        self.sock.sendall(packet)
        return packet_id

    def read_event(self) -> bytearray:
        """The next event -> its data: the oldest one that came while a reply was
        awaited and that the test has not taken out of .events, else the next
        packet, which must be an Event.Composite (kept in .events too)."""
        while self._unread:
            data = self._unread.popleft()
            if any(kept is data for kept in self.events):
                return data
        packet = self.read_packet()
        while not packet.is_reply and packet.kind in PROBE_OUTPUT:
            self.probe_output.append(packet)
            packet = self.read_packet()
        if packet.is_reply or packet.kind != Event.Composite.key:
            raise AssertionError(f"VM sent {packet.kind} where only events may come")
        self.events.append(packet.data)
        return packet.data

    # -- commands --

    def command(self, command, data: bytes = b"") -> tuple:
        """-> (error code, Reader over the reply data); error replies may carry data too."""
        packet_id = self.send_command(command, data)
        while True:
            packet = self.read_packet()
            if not packet.is_reply and packet.kind in PROBE_OUTPUT:
                self.probe_output.append(packet)
                continue
            if not packet.is_reply:
                if packet.kind != Event.Composite.key:
                    raise AssertionError(f"VM sent unexpected command {packet.kind}")
                self.keep_event(packet.data)
                continue
            if packet.id != packet_id:
                raise AssertionError(f"reply id {packet.id} to {command_label(command)}, expected {packet_id}")
            return packet.kind, Reader(packet.data, self.sizes)

    def read_probe_output(self):
        """The next Probe.Log/Snapshot/Notice packet: one that came while a reply
        was awaited, else the next packet read (events are kept as command() keeps them)."""
        while not self.probe_output:
            packet = self.read_packet()
            if packet.is_reply:
                raise AssertionError(f"reply {packet.id} came where probe output was awaited")
            if packet.kind in PROBE_OUTPUT:
                self.probe_output.append(packet)
            elif packet.kind == Event.Composite.key:
                self.keep_event(packet.data)
            else:
                raise AssertionError(f"VM sent unexpected command {packet.kind}")
        return self.probe_output.popleft()

    def keep_event(self, data: bytearray):
        """An event read by the test itself (read_packet) while it awaited replies:
        kept as command() keeps one, for read_event to return next."""
        self.events.append(data)
        self._unread.append(data)

    def ok(self, command, data: bytes = b"") -> Reader:
        """A command that must succeed -> a Reader over its reply."""
        error, reader = self.command(command, data)
        if error != Error.NONE:
            raise AssertionError(f"{command_label(command)} failed: {error_name(error)}")
        return reader

    def error(self, command, data: bytes = b"") -> int:
        """A command's error code (NONE on success); the reply data is dropped."""
        return self.command(command, data)[0]

    def wait_for_vm_start(self):
        """Reads until the VMStart event has come (as JDI does before resuming):
        with suspend=y the start's suspension is in force once it is sent."""
        def is_vm_start(event: bytearray) -> bool:
            # suspendPolicy byte, int count, then the first event's kind.
            return len(event) > 5 and event[5] == EventKind.VM_START
        while not any(is_vm_start(e) for e in self.events):
            self.read_event()
        # It came while IDSizes was awaited: it is read now.
        while self._unread and not is_vm_start(self._unread.popleft()):
            pass

    # -- IDs sized by IDSizes --

    def encode_id(self, value: int, kind: str = "object") -> bytes:
        return id_bytes(value, self.sizes[kind])

    def object_id(self, value: int) -> bytes:
        return self.encode_id(value, "object")

    def type_id(self, value: int) -> bytes:
        return self.encode_id(value, "referenceType")

    def method_id(self, value: int) -> bytes:
        return self.encode_id(value, "method")

    def field_id(self, value: int) -> bytes:
        return self.encode_id(value, "field")

    def frame_id(self, value: int) -> bytes:
        return self.encode_id(value, "frame")

    def ids(self, values, kind: str = "object") -> bytes:
        """IDs back to back, without a count."""
        return b"".join(self.encode_id(v, kind) for v in values)

    # -- common lookups --

    def class_by_signature(self, signature: str) -> int:
        """The referenceTypeID of the one loaded type with this JNI signature."""
        r = self.ok(VirtualMachine.ClassesBySignature, jdwp_string(signature))
        count = r.int()
        if count != 1:
            raise AssertionError(f"{signature} is loaded {count} times, expected exactly once")
        r.byte()  # refTypeTag
        return r.id("referenceType")

    def signature(self, type_id: int) -> str:
        return self.ok(ReferenceType.Signature, self.type_id(type_id)).string()

    def threads_by_name(self) -> dict:
        """{name: threadID} of all live threads; threads that end meanwhile are left out."""
        r = self.ok(VirtualMachine.AllThreads)
        by_name = {}
        for thread in [r.id() for _ in range(r.int())]:
            error, name = self.command(ThreadReference.Name, self.object_id(thread))
            if error == Error.NONE:
                by_name[name.string()] = thread
        return by_name

    def thread_named(self, name: str) -> int:
        threads = self.threads_by_name()
        if name not in threads:
            raise AssertionError(f"no thread named {name!r} among {sorted(threads)}")
        return threads[name]

    def fields(self, type_id: int) -> dict:
        """ReferenceType.Fields -> {name: FieldInfo(id, signature, mod_bits)}."""
        r = self.ok(ReferenceType.Fields, self.type_id(type_id))
        declared = {}
        for _ in range(r.int()):
            field, name, signature, mod_bits = r.id("field"), r.string(), r.string(), r.int()
            declared[name] = FieldInfo(field, signature, mod_bits)
        return declared

    def methods(self, type_id: int) -> list:
        """ReferenceType.Methods -> [MethodInfo(id, name, signature, mod_bits)] in reply order."""
        r = self.ok(ReferenceType.Methods, self.type_id(type_id))
        return [MethodInfo(r.id("method"), r.string(), r.string(), r.int()) for _ in range(r.int())]

    def method_named(self, type_id: int, name: str, signature: str | None = None) -> int:
        """The first method with this name (and signature, when given)."""
        for method in self.methods(type_id):
            if method.name == name and signature in (None, method.signature):
                return method.id
        raise AssertionError(f"no method {name}{signature or ''} in type {type_id}")

    def line_table(self, type_id: int, method_id: int) -> list:
        """Method.LineTable -> [(code index, line)] in the reply's order."""
        r = self.ok(Method.LineTable, self.type_id(type_id) + self.method_id(method_id))
        r.long(), r.long()
        return [(r.long(), r.int()) for _ in range(r.int())]

    def code_index(self, type_id: int, method_id: int, line: int) -> int:
        """The first code index of `line` in the method (the lowest: a table need not be sorted)."""
        indexes = [index for index, number in self.line_table(type_id, method_id) if number == line]
        if not indexes:
            raise AssertionError(f"line {line} not in the method's line table")
        return min(indexes)

    def static_values(self, type_id: int, field_ids: list) -> list:
        """ReferenceType.GetValues -> [(tag, value)] in request order."""
        request = self.type_id(type_id) + i32(len(field_ids)) + self.ids(field_ids, "field")
        r = self.ok(ReferenceType.GetValues, request)
        return [r.value() for _ in range(r.int())]

    def object_values(self, object_id: int, field_ids: list) -> list:
        """ObjectReference.GetValues -> [(tag, value)] in request order."""
        request = self.object_id(object_id) + i32(len(field_ids)) + self.ids(field_ids, "field")
        r = self.ok(ObjectReference.GetValues, request)
        return [r.value() for _ in range(r.int())]

    def frames(self, thread: int, start: int = 0, length: int = -1) -> list:
        """ThreadReference.Frames -> [(frameID, location)]."""
        r = self.ok(ThreadReference.Frames, self.object_id(thread) + i32(start) + i32(length))
        return [(r.id("frame"), r.location()) for _ in range(r.int())]

    def create_string(self, text: str) -> int:
        return self.ok(VirtualMachine.CreateString, jdwp_string(text)).id()

    def string_value(self, string_id: int) -> str:
        return self.ok(StringReference.Value, self.object_id(string_id)).string()
