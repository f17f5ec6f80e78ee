// The interface-method invocation matrix (jdi/InterfaceInvokeJdi.java) through
// Eclipse's JDI implementation instead of the JDK's.
//
// Usage: InterfaceInvokeEclipse <debuggeePort> <bpLine>
public final class InterfaceInvokeEclipse {
    public static void main(String[] args) throws Exception {
        InterfaceInvokeJdi.run(EclipseKit.manager(), args);
    }
}
