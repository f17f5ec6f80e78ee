// Huge strings through com.sun.jdi against a running ObjectsFixture ("huge"):
// StringReference.value() of each named static String field equals the string
// the fixture built (ObjectsFixture.hugeString, rebuilt here: the JDI programs
// are compiled apart from the fixtures). The agent sends these in parts.
//
// Usage: HugeStringsJdi <port> <field>:<length>:<latin1 true|false>...
// Prints one "CHECK <what>" line per passed check and "RESULT ok" at the end;
// "RESULT fail: ..." and exit code 1 otherwise. Leaves with dispose(): the
// debuggee runs on.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StringReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import java.util.List;

public class HugeStringsJdi {
    public static void main(String[] args) throws Exception {
        try {
            run(Integer.parseInt(args[0]), List.of(args).subList(1, args.length));
            System.out.println("RESULT ok");
        } catch (Throwable t) {
            System.out.println("RESULT fail: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    // ObjectsFixture.hugeString, unit for unit.
    static String hugeString(int length, boolean latin1) {
        char[] c = new char[length];
        for (int i = 0; i < length; i++) {
            c[i] = (char) ('a' + i % 26);
        }
        if (!latin1) {
            for (int i = 0; i + 5 < length; i += 1000) {
                c[i] = '\ud83d';
                c[i + 1] = '\ude00';
                c[i + 2] = '\0';
                c[i + 3] = '\u20ac';
                c[i + 4] = '\u00e9';
            }
            c[length - 2] = '\ud83d';
            c[length - 1] = '\ude00';
        } else {
            c[length / 2] = '\0';
            c[length - 1] = '\u00ff';
        }
        return new String(c);
    }

    static void run(int port, List<String> fields) throws Exception {
        VirtualMachine vm = SocketAttach.attach(Bootstrap.virtualMachineManager(), port);
        vm.suspend();
        ReferenceType fixture = vm.classesByName("ObjectsFixture").get(0);
        for (String spec : fields) {
            String[] parts = spec.split(":");
            String expected = hugeString(Integer.parseInt(parts[1]), Boolean.parseBoolean(parts[2]));
            Value v = fixture.getValue(fixture.fieldByName(parts[0]));
            String actual = ((StringReference) v).value();
            if (!expected.equals(actual)) {
                int at = 0;
                while (at < Math.min(expected.length(), actual.length()) && expected.charAt(at) == actual.charAt(at)) {
                    at++;
                }
                throw new AssertionError(parts[0] + ": " + actual.length() + " chars, expected " + expected.length()
                        + "; first difference at " + at);
            }
            System.out.println("CHECK " + parts[0] + " value() equals the fixture's string (" + actual.length() + " chars)");
        }
        vm.resume();
        vm.dispose();
    }
}
