// The frame and thread control scenarios (jdi/FramesControlJdi.java) through
// Eclipse's JDI implementation instead of the JDK's (see InspectEclipse.java).
public final class FramesControlEclipse {
    public static void main(String[] args) {
        System.exit(FramesControlJdi.run(EclipseKit.manager(), "eclipse", args, EclipseKit::raiseRequestTimeout));
    }
}
