/* A library named like a transport but without jdwpTransport_OnLoad: stock's
 * "transport library missing onLoad entry" case. */
int jdwpx_not_a_transport(void) { return 0; }
