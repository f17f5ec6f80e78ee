// The stepping table (jdi/SteppingJdi.java) through Eclipse's JDI implementation
// instead of the JDK's; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SteppingEclipse <debuggeePort> <row>...   (as SteppingJdi)
public final class SteppingEclipse {
    public static void main(String[] args) {
        System.exit(SteppingJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
