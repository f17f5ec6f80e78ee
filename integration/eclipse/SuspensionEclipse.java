// The suspension scenarios (jdi/SuspensionJdi.java) through Eclipse's JDI
// implementation; outside OSGi as eclipse/InspectEclipse.java explains.
//
// Usage: SuspensionEclipse <port> <policyLine> <hitLine>   (as SuspensionJdi)
public final class SuspensionEclipse {
    public static void main(String[] args) {
        System.exit(SuspensionJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
