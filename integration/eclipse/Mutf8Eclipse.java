// The string scenarios (jdi/Mutf8Jdi.java) through Eclipse's JDI, which speaks
// modified UTF-8; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: Mutf8Eclipse <debuggeePort> <agent encoding: standard|modified>
public final class Mutf8Eclipse {
    public static void main(String[] args) {
        System.exit(Mutf8Jdi.run(EclipseKit.manager(), "modified", args, EclipseKit::raiseRequestTimeout));
    }
}
