// HotSwap (jdi/RedefineJdi.java) through
// Eclipse's JDI implementation instead of the JDK's (see InspectEclipse.java).
public final class RedefineEclipse {
    public static void main(String[] args) {
        System.exit(RedefineJdi.run(EclipseKit.manager(), args, EclipseKit::raiseRequestTimeout));
    }
}
