// The one raw JDWP client of the Java code: the bench's raw scenarios
// (bench/CMakeLists.txt compiles this file with them) and the JDI drivers that
// speak JDWP beside JDI (InspectScenarios' relay) use it.
//
// Wire pieces first (the handshake, a packet read or written whole, a command's
// data built and a reply's data read, IDs sized by the agent's IDSizes), then
// a client over a socket: handshake, IDSizes, numbered commands whose replies
// are matched by id; events are read past (only VMStart is noted) unless kept
// for an event loop. Reads block at most the socket timeout.

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;

final class Jdwp implements AutoCloseable {
    static final int HEADER_SIZE = 11;
    static final int REPLY_FLAG = 0x80;
    static final byte[] HANDSHAKE = "JDWP-Handshake".getBytes(StandardCharsets.US_ASCII);

    // ---- wire

    /** An error reply: the command set/command, what we asked, and the code. */
    static final class ErrorReply extends Exception {
        private static final long serialVersionUID = 1L;
        static final int INVALID_OBJECT = 20;
        static final int NOT_IMPLEMENTED = 99;
        static final int ABSENT_INFORMATION = 101;
        static final int NATIVE_METHOD = 511;
        final int code;

        ErrorReply(String what, int code) {
            super(what + " answered JDWP error " + code);
            this.code = code;
        }
    }

    /**
     * One packet: its header's fields and its data. {@code code} is the command
     * set and command (high and low byte) of a command, the error of a reply.
     */
    record Packet(int length, int id, int flags, int code, byte[] data) {
        /** A command packet. */
        static Packet command(int id, int commandSet, int command, byte[] data) {
            return new Packet(HEADER_SIZE + data.length, id, 0, commandSet << 8 | command, data);
        }

        /** The header alone (data null); {@link #withData} reads the rest. */
        static Packet readHeader(DataInputStream in) throws IOException {
            int length = in.readInt();
            int id = in.readInt();
            int flags = in.readUnsignedByte();
            int code = in.readUnsignedShort();
            return new Packet(length, id, flags, code, null);
        }

        /** This header with its data read from {@code in} (none where the length is short of a header). */
        Packet withData(DataInputStream in) throws IOException {
            byte[] data = new byte[Math.max(0, length - HEADER_SIZE)];
            in.readFully(data);
            return new Packet(length, id, flags, code, data);
        }

        static Packet read(DataInputStream in) throws IOException {
            return readHeader(in).withData(in);
        }

        boolean isReply() {
            return (flags & REPLY_FLAG) != 0;
        }

        /** Header and data in one array, the length as read: one write sends the packet as one segment. */
        byte[] bytes() {
            ByteBuffer whole = ByteBuffer.allocate(HEADER_SIZE + data.length);
            whole.putInt(length).putInt(id).put((byte) flags).putShort((short) code).put(data);
            return whole.array();
        }

        /** "id=7 len=16 flags=0 cmd=1/7" or "... error=20", for traces. */
        String describe() {
            return "id=" + id + " len=" + length + " flags=" + flags
                    + (isReply() ? " error=" + code : " cmd=" + (code >> 8) + "/" + (code & 0xff));
        }
    }

    /** Bytes of a command's data, big-endian, IDs sized by the agent's IDSizes. */
    static final class Body {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        Body id(long value, int size) {
            for (int shift = 8 * (size - 1); shift >= 0; shift -= 8) {
                bytes.write((int) (value >>> shift));
            }
            return this;
        }

        Body i32(int value) {
            return id(value, 4);
        }

        Body u8(int value) {
            bytes.write(value);
            return this;
        }

        Body string(String text) {
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            i32(utf8.length);
            bytes.write(utf8, 0, utf8.length);
            return this;
        }

        byte[] toByteArray() {
            return bytes.toByteArray();
        }
    }

    /** A reply's (or an event's) data, read front to back. */
    static final class Reply {
        final ByteBuffer data;
        private final int objectIdSize;

        Reply(byte[] data, int objectIdSize) {
            this.data = ByteBuffer.wrap(data);
            this.objectIdSize = objectIdSize;
        }

        int u8() {
            return data.get() & 0xFF;
        }

        int i32() {
            return data.getInt();
        }

        long i64() {
            return data.getLong();
        }

        long id(int size) {
            long value = 0;
            for (int i = 0; i < size; i++) {
                value = value << 8 | (data.get() & 0xFF);
            }
            return value;
        }

        long objectId() {
            return id(objectIdSize);
        }

        String string() {
            byte[] utf8 = new byte[data.getInt()];
            data.get(utf8);
            return new String(utf8, StandardCharsets.UTF_8);
        }

        int remaining() {
            return data.remaining();
        }
    }

    // ---- the client

    private final Socket socket = new Socket();
    private final DataInputStream in;
    private final DataOutputStream out;
    private int nextId = 1;
    private boolean vmStarted;
    private boolean keepEvents;
    private final ArrayDeque<byte[]> kept = new ArrayDeque<>();
    private boolean keepVendor;
    private final ArrayDeque<Packet> vendor = new ArrayDeque<>();
    int objectIdSize = 8;
    int referenceTypeIdSize = 8;
    int methodIdSize = 8;
    int fieldIdSize = 8;
    int frameIdSize = 8;

    /** Connects to 127.0.0.1:{@code port}, shakes hands and asks IDSizes; {@code timeoutMs} bounds each step. */
    Jdwp(int port, int timeoutMs) throws IOException, ErrorReply {
        socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
        socket.setSoTimeout(timeoutMs);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 12));
        out.write(HANDSHAKE);
        out.flush();
        byte[] answer = new byte[HANDSHAKE.length];
        in.readFully(answer);
        if (!Arrays.equals(answer, HANDSHAKE)) {
            throw new IOException("bad handshake answer " + new String(answer, StandardCharsets.ISO_8859_1));
        }
        Reply sizes = command("VirtualMachine.IDSizes", 1, 7, new Body());
        fieldIdSize = sizes.i32();
        methodIdSize = sizes.i32();
        objectIdSize = sizes.i32();
        referenceTypeIdSize = sizes.i32();
        frameIdSize = sizes.i32();
    }

    void readTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** Sends a command and returns its reply's data; an error reply throws ErrorReply. */
    Reply command(String what, int commandSet, int command, Body body) throws IOException, ErrorReply {
        int id = send(commandSet, command, body.toByteArray());
        flush();
        while (true) {
            Packet reply = readReply();
            if (reply.id() != id) {
                continue;
            }
            if (reply.code() != 0) {
                throw new ErrorReply(what, reply.code());
            }
            return reply(reply.data());
        }
    }

    /** Reply data read with this connection's ID sizes. */
    Reply reply(byte[] data) {
        return new Reply(data, objectIdSize);
    }

    /** Queues a command without flushing or waiting (pipelining); returns its id. */
    int send(int commandSet, int command, byte[] data) throws IOException {
        int id = nextId++;
        out.write(Packet.command(id, commandSet, command, data).bytes());
        return id;
    }

    void flush() throws IOException {
        out.flush();
    }

    /** Reads packets until a reply comes (events are read past); its code is the error. */
    Packet readReply() throws IOException {
        while (true) {
            Packet packet = Packet.readHeader(in);
            if (packet.length() < HEADER_SIZE) {
                throw new IOException("packet length " + packet.length());
            }
            packet = packet.withData(in);
            if (!packet.isReply()) {
                noteEvent(packet);
            } else {
                return packet;
            }
        }
    }

    private void noteEvent(Packet packet) {
        // A vendor set's command from the VM (jdwpx's Probe.Log/Snapshot/Notice, set 128).
        if (keepVendor && (packet.code() >> 8) >= 128) {
            vendor.add(packet);
            return;
        }
        // Event.Composite (64/100): suspendPolicy, count, then the first event's kind.
        byte[] payload = packet.data();
        if (packet.code() != (64 << 8 | 100) || payload.length <= 5) {
            return;
        }
        if (payload[5] == 90) {
            vmStarted = true;
        } else if (keepEvents) {
            kept.add(payload);
        }
    }

    /**
     * From now on, composites read while waiting for a reply are kept for
     * nextEvent (an event loop's next event may come before its resume's reply).
     */
    void keepEvents() {
        keepEvents = true;
    }

    /**
     * From now on, commands of vendor sets (>= 128) that the VM sends are kept
     * for nextVendorCommand (jdwpx's probe output). Never send such a set to a
     * stock agent: it aborts the JVM.
     */
    void keepVendorCommands() {
        keepVendor = true;
    }

    /** The next vendor command from the VM (kept, or read now). */
    Packet nextVendorCommand() throws IOException {
        while (vendor.isEmpty()) {
            readOnePacket();
        }
        return vendor.poll();
    }

    /** A vendor command already read, or null. */
    Packet pollVendorCommand() {
        return vendor.poll();
    }

    /** The next composite's one event (kept, or read now), from its kind on. */
    Reply nextEvent() throws IOException {
        while (kept.isEmpty()) {
            readOnePacket();
        }
        Reply event = reply(kept.poll());
        event.u8();  // suspendPolicy
        int count = event.i32();
        if (count != 1) {
            // The raw loops set one request at a time: a second event would be one not asked for.
            throw new IOException("a composite of " + count + " events, expected 1");
        }
        return event;
    }

    /** Reads packets until VMStart has come: from then on the start's suspension is in force. */
    void awaitVmStart() throws IOException {
        while (!vmStarted) {
            readOnePacket();
        }
    }

    /** Reads one packet: an event is noted, a reply (of no command waited for) dropped. */
    private void readOnePacket() throws IOException {
        Packet packet = Packet.read(in);
        if (!packet.isReply()) {
            noteEvent(packet);
        }
    }

    /** EventRequest.Set of `kind` with one ClassMatch modifier; returns the request's id. */
    int requestWithClassMatch(int kind, int suspendPolicy, String pattern) throws IOException, ErrorReply {
        return command("EventRequest.Set " + kind, 15, 1,
                new Body().u8(kind).u8(suspendPolicy).i32(1).u8(5).string(pattern)).i32();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing after the debuggee died: nothing left to release.
        }
    }
}
