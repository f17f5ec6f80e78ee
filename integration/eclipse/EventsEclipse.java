// jdi/EventsJdi.java through Eclipse's JDI (see InspectEclipse.java for how it runs outside OSGi).
//
// Usage: EventsEclipse <debuggeePort> [methods|jdi]
public final class EventsEclipse {
    public static void main(String[] args) throws Exception {
        System.exit(EventsJdi.run(EclipseKit.manager(), args[0],
                args.length > 1 ? args[1] : "methods"));
    }
}
