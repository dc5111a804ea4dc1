/* The C ABI of a cubecheck plugin DUT (`--dut plugin:PATH.so`).
 *
 * A plugin is a shared library exporting the four functions below. Requests and answers are the
 * bytes of the exec: protocol (docs/dut-protocol.md), so one implementation can serve both ways.
 * With `plugin:` cubecheck loads it in a child process, so a crash or a hang fails only the case
 * that caused it; with `inprocess:PATH.so` it runs inside cubecheck, faster, but a crash ends
 * the run.
 *
 * With CMake: find_package(cubecheck) and link the target cubecheck::dut_plugin, which carries
 * this header's include directory and nothing else.
 */
#ifndef CUBECHECK_DUT_PLUGIN_H
#define CUBECHECK_DUT_PLUGIN_H

#ifdef __cplusplus
extern "C" {
#endif

/** The ABI version this header describes. Version 2 is the same ABI with `limit` lines allowed in
 *  the handshake. */
#define CUBECHECK_DUT_ABI_VERSION 1

/** Returns CUBECHECK_DUT_ABI_VERSION, or 2 when the handshake holds `limit` lines
 *  (docs/dut-protocol.md). */
int cubecheck_dut_abi_version(void);

/** The handshake answer, as an exec: DUT writes it after the greeting: "dut 1\n" ... "end\n".
 *  The string must stay valid while the library is loaded. */
const char* cubecheck_dut_hello(void);

/** Runs one request (a "program" message, request_size bytes) and stores the whole answer in a
 *  buffer the plugin allocates: *response and *response_size. Returns 0 on success; any other
 *  value is reported as an adapter error for that case. */
int cubecheck_dut_run(const unsigned char* request, unsigned long request_size,
                      unsigned char** response, unsigned long* response_size);

/** Frees a buffer cubecheck_dut_run returned. */
void cubecheck_dut_free(unsigned char* response);

#ifdef __cplusplus
}
#endif

#endif /* CUBECHECK_DUT_PLUGIN_H */
