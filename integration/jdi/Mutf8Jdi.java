// Strings through a JDI client against an agent speaking standard UTF-8 (the
// default) or modified UTF-8 (mutf8=y); test_mutf8.py runs it through the JDK's
// JDI and, by eclipse/Mutf8Eclipse.java, through Eclipse's.
//
// The JDK's JDI reads and writes JDWP strings as standard UTF-8; Eclipse's as
// modified UTF-8 (its JdwpString: NUL as C0 80, each UTF-16 unit on its own).
// Strings whose two encodings are the same bytes (no NUL, no supplementary
// character) work either way. A string with NUL and a supplementary character
// reaches the JVM intact either way (the agent takes both encodings in, as
// stock); what comes back is checked only where the client's encoding is the
// agent's, and otherwise reported as a client limitation (SKIP line).
//
// Each check creates the string in the debuggee (VirtualMachine.CreateString via
// mirrorOf), reads the JVM's own UTF-16 units from the String's value/coder fields
// (independent of any wire encoding) and the string back (StringReference.Value).
//
// Usage: Mutf8Jdi <debuggeePort> <agent encoding: standard|modified>
// Output: CHECK <name> ok | CHECK <name> <what differs>, SKIP <reason>, DETAIL
// lines, then RESULT ok | RESULT fail: <reason>.
import com.sun.jdi.ArrayReference;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ByteValue;
import com.sun.jdi.Field;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StringReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.VirtualMachineManager;
import java.util.List;
import java.util.function.Consumer;

public final class Mutf8Jdi {
    // Same bytes in standard and modified UTF-8: Latin-1, Greek and CJK.
    static final String BMP = "plain \u00e9\u03a9\u4e2d";
    // "a", NUL, "b", U+1F600: differs between the two encodings.
    static final String NUL_AND_SUPPLEMENTARY = "a\u0000b\ud83d\ude00";

    public static void main(String[] args) {
        System.exit(run(Bootstrap.virtualMachineManager(), "standard", args, vm -> {}));
    }

    // clientEncoding: what the client's JDI writes and reads (standard | modified).
    public static int run(VirtualMachineManager vmm, String clientEncoding, String[] args,
                          Consumer<VirtualMachine> configure) {
        VirtualMachine vm = null;
        try {
            vm = JdiKit.attach(vmm, Integer.parseInt(args[0]));
            configure.accept(vm);
            String agentEncoding = args[1];
            boolean sameEncoding = clientEncoding.equals(agentEncoding);
            checkString(vm, "bmp", BMP, true);
            checkString(vm, "nul-and-supplementary", NUL_AND_SUPPLEMENTARY, sameEncoding);
            List<ReferenceType> string = vm.classesByName("java.lang.String");
            JdiKit.report("signature " + (string.size() == 1 && string.get(0).signature().equals("Ljava/lang/String;")
                                                     ? "ok" : string.toString()));
            System.out.println("RESULT ok");
            return 0;
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            return 1;
        } finally {
            if (vm != null) {
                try {
                    vm.dispose();
                } catch (RuntimeException e) {
                    // already gone: nothing to release
                }
            }
        }
    }

    // Creates s in the debuggee and prints CHECK <name>-jvm (what the JVM holds)
    // and CHECK <name>-back (what StringReference.Value brings back), each "ok" or
    // what differs; readBack false: the client cannot decode what the agent
    // sends, so the read back is only shown (SKIP).
    static void checkString(VirtualMachine vm, String name, String s, boolean readBack) {
        String inJvm;
        String back;
        try {
            StringReference mirror = vm.mirrorOf(s);
            inJvm = jvmUnits(mirror);
            back = mirror.value();
        } catch (RuntimeException e) {
            JdiKit.report(name + "-jvm threw " + e);
            return;
        }
        JdiKit.report(name + "-jvm " + (inJvm.equals(s) ? "ok" : "got " + escape(inJvm) + " sent " + escape(s)));
        String verdict = back.equals(s) ? "ok" : "got " + escape(back) + " sent " + escape(s);
        if (readBack) {
            JdiKit.report(name + "-back " + verdict);
        } else {
            System.out.println("SKIP " + name + "-back: client limitation: this JDI reads the other UTF-8 (" + verdict + ")");
        }
    }

    // The String's UTF-16 units as the JVM stores them (compact strings: coder 0
    // is Latin-1, 1 is UTF-16 in the platform's byte order, little-endian here).
    static String jvmUnits(StringReference s) {
        ReferenceType type = s.referenceType();
        Field valueField = type.fieldByName("value");
        Field coderField = type.fieldByName("coder");
        List<Value> bytes = ((ArrayReference) s.getValue(valueField)).getValues();
        int coder = ((ByteValue) s.getValue(coderField)).value();
        StringBuilder units = new StringBuilder();
        if (coder == 0) {
            for (Value b : bytes) units.append((char) (((ByteValue) b).value() & 0xff));
        } else {
            for (int i = 0; i + 1 < bytes.size(); i += 2) {
                int lo = ((ByteValue) bytes.get(i)).value() & 0xff;
                int hi = ((ByteValue) bytes.get(i + 1)).value() & 0xff;
                units.append((char) (lo | hi << 8));
            }
        }
        return units.toString();
    }

    static String escape(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c >= 0x20 && c < 0x7f) out.append(c);
            else out.append(String.format("\\u%04x", (int) c));
        }
        return out.append('"').toString();
    }
}
