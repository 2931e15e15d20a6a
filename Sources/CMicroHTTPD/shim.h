#ifndef BEEKON_CMICROHTTPD_SHIM_H
#define BEEKON_CMICROHTTPD_SHIM_H
// Fixed-arity wrappers for libmicrohttpd's variadic functions and its cast macros.
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

// MHD_start_daemon with every option passed through one MHD_OPTION_ARRAY, which must itself
// end with an MHD_OPTION_END item.
static inline struct MHD_Daemon *beekon_mhd_start_daemon(
    unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback acceptPolicy,
    void *acceptPolicyContext, MHD_AccessHandlerCallback handler, void *handlerContext,
    const struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, acceptPolicy, acceptPolicyContext, handler,
                            handlerContext, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

// The port a daemon listens on (useful after binding port 0); 0 when unknown.
static inline uint16_t beekon_mhd_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// The peer address of a connection, or NULL.
static inline const struct sockaddr *beekon_mhd_connection_client_address(
    struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

static inline ssize_t beekon_mhd_content_reader_end_of_stream(void) {
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static inline ssize_t beekon_mhd_content_reader_end_with_error(void) {
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

static inline uint64_t beekon_mhd_size_unknown(void) {
    return MHD_SIZE_UNKNOWN;
}

#endif
