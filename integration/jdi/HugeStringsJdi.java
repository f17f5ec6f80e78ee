// Huge strings through com.sun.jdi against a running ObjectsFixture ("huge"):
// StringReference.value() of each named static String field is the string the
// fixture built, checked by the SHA-256 of its UTF-8 (the test computes it from
// its own model of ObjectsFixture.hugeString; the strings hold no unpaired
// surrogate, so equal bytes mean equal strings). The agent sends these in parts.
//
// Usage: HugeStringsJdi <port> <field>:<sha256 of its UTF-8, hex>...
// Prints one "CHECK <what>" line per passed check and "RESULT ok" at the end;
// "RESULT fail: ..." and exit code 1 otherwise. Leaves with dispose(): the
// debuggee runs on.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StringReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
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

    static void run(int port, List<String> fields) throws Exception {
        VirtualMachine vm = JdiKit.attach(Bootstrap.virtualMachineManager(), port);
        vm.suspend();
        ReferenceType fixture = vm.classesByName("ObjectsFixture").get(0);
        for (String spec : fields) {
            String[] parts = spec.split(":");
            Value v = fixture.getValue(fixture.fieldByName(parts[0]));
            String actual = ((StringReference) v).value();
            String digest = HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(actual.getBytes(StandardCharsets.UTF_8)));
            if (!digest.equals(parts[1])) {
                throw new AssertionError(parts[0] + ": " + actual.length() + " chars, SHA-256 of its UTF-8 " + digest
                        + ", expected " + parts[1]);
            }
            JdiKit.report(parts[0] + " value() equals the fixture's string (" + actual.length() + " chars)");
        }
        vm.resume();
        vm.dispose();
    }
}
