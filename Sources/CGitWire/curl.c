/* libcurl through dlopen: see cgw_curl_load in CGitWire.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <curl/curl.h>
#include "CGitWire.h"

_Static_assert(CGW_CURLOPT_URL == CURLOPT_URL, "CURLOPT_URL");
_Static_assert(CGW_CURLOPT_NOSIGNAL == CURLOPT_NOSIGNAL, "CURLOPT_NOSIGNAL");
_Static_assert(CGW_CURLOPT_PROTOCOLS_STR == CURLOPT_PROTOCOLS_STR, "CURLOPT_PROTOCOLS_STR");
_Static_assert(CGW_CURLOPT_REDIR_PROTOCOLS_STR == CURLOPT_REDIR_PROTOCOLS_STR, "CURLOPT_REDIR_PROTOCOLS_STR");
_Static_assert(CGW_CURLOPT_FOLLOWLOCATION == CURLOPT_FOLLOWLOCATION, "CURLOPT_FOLLOWLOCATION");
_Static_assert(CGW_CURLOPT_MAXREDIRS == CURLOPT_MAXREDIRS, "CURLOPT_MAXREDIRS");
_Static_assert(CGW_CURLOPT_USERAGENT == CURLOPT_USERAGENT, "CURLOPT_USERAGENT");
_Static_assert(CGW_CURLOPT_ACCEPT_ENCODING == CURLOPT_ACCEPT_ENCODING, "CURLOPT_ACCEPT_ENCODING");
_Static_assert(CGW_CURLOPT_ERRORBUFFER == CURLOPT_ERRORBUFFER, "CURLOPT_ERRORBUFFER");
_Static_assert(CGW_CURLOPT_CONNECTTIMEOUT_MS == CURLOPT_CONNECTTIMEOUT_MS, "CURLOPT_CONNECTTIMEOUT_MS");
_Static_assert(CGW_CURLOPT_CAINFO == CURLOPT_CAINFO, "CURLOPT_CAINFO");
_Static_assert(CGW_CURLOPT_CAPATH == CURLOPT_CAPATH, "CURLOPT_CAPATH");
_Static_assert(CGW_CURLOPT_SSL_VERIFYPEER == CURLOPT_SSL_VERIFYPEER, "CURLOPT_SSL_VERIFYPEER");
_Static_assert(CGW_CURLOPT_SSL_VERIFYHOST == CURLOPT_SSL_VERIFYHOST, "CURLOPT_SSL_VERIFYHOST");
_Static_assert(CGW_CURLOPT_USERNAME == CURLOPT_USERNAME, "CURLOPT_USERNAME");
_Static_assert(CGW_CURLOPT_PASSWORD == CURLOPT_PASSWORD, "CURLOPT_PASSWORD");
_Static_assert(CGW_CURLOPT_HTTPAUTH == CURLOPT_HTTPAUTH, "CURLOPT_HTTPAUTH");
_Static_assert(CGW_CURLOPT_HTTPHEADER == CURLOPT_HTTPHEADER, "CURLOPT_HTTPHEADER");
_Static_assert(CGW_CURLOPT_POST == CURLOPT_POST, "CURLOPT_POST");
_Static_assert(CGW_CURLOPT_POSTFIELDSIZE_LARGE == CURLOPT_POSTFIELDSIZE_LARGE, "CURLOPT_POSTFIELDSIZE_LARGE");
_Static_assert(CGW_CURLOPT_POSTFIELDS == CURLOPT_POSTFIELDS, "CURLOPT_POSTFIELDS");
_Static_assert(CGW_CURLOPT_HTTPGET == CURLOPT_HTTPGET, "CURLOPT_HTTPGET");
_Static_assert(CGW_CURLOPT_WRITEFUNCTION == CURLOPT_WRITEFUNCTION, "CURLOPT_WRITEFUNCTION");
_Static_assert(CGW_CURLOPT_WRITEDATA == CURLOPT_WRITEDATA, "CURLOPT_WRITEDATA");
_Static_assert(CGW_CURLOPT_READFUNCTION == CURLOPT_READFUNCTION, "CURLOPT_READFUNCTION");
_Static_assert(CGW_CURLOPT_READDATA == CURLOPT_READDATA, "CURLOPT_READDATA");
_Static_assert(CGW_CURLOPT_HEADERFUNCTION == CURLOPT_HEADERFUNCTION, "CURLOPT_HEADERFUNCTION");
_Static_assert(CGW_CURLOPT_HEADERDATA == CURLOPT_HEADERDATA, "CURLOPT_HEADERDATA");
_Static_assert(CGW_CURLOPT_NOPROXY == CURLOPT_NOPROXY, "CURLOPT_NOPROXY");
_Static_assert(CGW_CURLOPT_PROXY == CURLOPT_PROXY, "CURLOPT_PROXY");
_Static_assert(CGW_CURLOPT_VERBOSE == CURLOPT_VERBOSE, "CURLOPT_VERBOSE");
_Static_assert(CGW_CURLOPT_HTTP_VERSION == CURLOPT_HTTP_VERSION, "CURLOPT_HTTP_VERSION");
_Static_assert(CGW_CURLOPT_LOW_SPEED_LIMIT == CURLOPT_LOW_SPEED_LIMIT, "CURLOPT_LOW_SPEED_LIMIT");
_Static_assert(CGW_CURLOPT_LOW_SPEED_TIME == CURLOPT_LOW_SPEED_TIME, "CURLOPT_LOW_SPEED_TIME");
_Static_assert(CGW_CURLOPT_PROXYTYPE == CURLOPT_PROXYTYPE, "CURLOPT_PROXYTYPE");
_Static_assert(CGW_CURLOPT_PROXYUSERNAME == CURLOPT_PROXYUSERNAME, "CURLOPT_PROXYUSERNAME");
_Static_assert(CGW_CURLOPT_PROXYPASSWORD == CURLOPT_PROXYPASSWORD, "CURLOPT_PROXYPASSWORD");
_Static_assert(CGW_CURLOPT_PROXYAUTH == CURLOPT_PROXYAUTH, "CURLOPT_PROXYAUTH");
_Static_assert(CGW_CURL_HTTP_VERSION_1_1 == CURL_HTTP_VERSION_1_1, "CURL_HTTP_VERSION_1_1");
_Static_assert(CGW_CURL_HTTP_VERSION_2_0 == CURL_HTTP_VERSION_2_0, "CURL_HTTP_VERSION_2_0");
_Static_assert(CGW_CURLPROXY_HTTP == CURLPROXY_HTTP, "CURLPROXY_HTTP");
_Static_assert(CGW_CURLPROXY_HTTPS == CURLPROXY_HTTPS, "CURLPROXY_HTTPS");
_Static_assert(CGW_CURLPROXY_SOCKS4 == CURLPROXY_SOCKS4, "CURLPROXY_SOCKS4");
_Static_assert(CGW_CURLPROXY_SOCKS5 == CURLPROXY_SOCKS5, "CURLPROXY_SOCKS5");
_Static_assert(CGW_CURLPROXY_SOCKS4A == CURLPROXY_SOCKS4A, "CURLPROXY_SOCKS4A");
_Static_assert(CGW_CURLPROXY_SOCKS5_HOSTNAME == CURLPROXY_SOCKS5_HOSTNAME, "CURLPROXY_SOCKS5_HOSTNAME");
_Static_assert(CGW_CURLAUTH_DIGEST == CURLAUTH_DIGEST, "CURLAUTH_DIGEST");
_Static_assert(CGW_CURLAUTH_NEGOTIATE == CURLAUTH_NEGOTIATE, "CURLAUTH_NEGOTIATE");
_Static_assert(CGW_CURLAUTH_NTLM == CURLAUTH_NTLM, "CURLAUTH_NTLM");
_Static_assert(CGW_CURLINFO_RESPONSE_CODE == CURLINFO_RESPONSE_CODE, "CURLINFO_RESPONSE_CODE");
_Static_assert(CGW_CURLINFO_EFFECTIVE_URL == CURLINFO_EFFECTIVE_URL, "CURLINFO_EFFECTIVE_URL");
_Static_assert(CGW_CURLINFO_HTTPAUTH_AVAIL == CURLINFO_HTTPAUTH_AVAIL, "CURLINFO_HTTPAUTH_AVAIL");
_Static_assert(CGW_CURLAUTH_BASIC == CURLAUTH_BASIC, "CURLAUTH_BASIC");
_Static_assert(CGW_CURLE_OK == CURLE_OK, "CURLE_OK");
_Static_assert(CGW_CURLE_COULDNT_RESOLVE_HOST == CURLE_COULDNT_RESOLVE_HOST, "CURLE_COULDNT_RESOLVE_HOST");
_Static_assert(CGW_CURLE_COULDNT_RESOLVE_PROXY == CURLE_COULDNT_RESOLVE_PROXY, "CURLE_COULDNT_RESOLVE_PROXY");
_Static_assert(CGW_CURLE_COULDNT_CONNECT == CURLE_COULDNT_CONNECT, "CURLE_COULDNT_CONNECT");
_Static_assert(CGW_CURLE_OPERATION_TIMEDOUT == CURLE_OPERATION_TIMEDOUT, "CURLE_OPERATION_TIMEDOUT");
_Static_assert(CGW_CURLE_SSL_CONNECT_ERROR == CURLE_SSL_CONNECT_ERROR, "CURLE_SSL_CONNECT_ERROR");
_Static_assert(CGW_CURLE_PEER_FAILED_VERIFICATION == CURLE_PEER_FAILED_VERIFICATION, "CURLE_PEER_FAILED_VERIFICATION");
_Static_assert(CGW_CURLE_SSL_CERTPROBLEM == CURLE_SSL_CERTPROBLEM, "CURLE_SSL_CERTPROBLEM");
_Static_assert(CGW_CURLE_SSL_CIPHER == CURLE_SSL_CIPHER, "CURLE_SSL_CIPHER");
_Static_assert(CGW_CURLE_SSL_CACERT_BADFILE == CURLE_SSL_CACERT_BADFILE, "CURLE_SSL_CACERT_BADFILE");
_Static_assert(CGW_CURLE_SSL_ISSUER_ERROR == CURLE_SSL_ISSUER_ERROR, "CURLE_SSL_ISSUER_ERROR");
_Static_assert(CGW_CURLE_SSL_PINNEDPUBKEYNOTMATCH == CURLE_SSL_PINNEDPUBKEYNOTMATCH, "CURLE_SSL_PINNEDPUBKEYNOTMATCH");
_Static_assert(CGW_CURLE_SSL_INVALIDCERTSTATUS == CURLE_SSL_INVALIDCERTSTATUS, "CURLE_SSL_INVALIDCERTSTATUS");
_Static_assert(CGW_CURLE_SSL_CRL_BADFILE == CURLE_SSL_CRL_BADFILE, "CURLE_SSL_CRL_BADFILE");
_Static_assert(CGW_CURLE_WRITE_ERROR == CURLE_WRITE_ERROR, "CURLE_WRITE_ERROR");
_Static_assert(CGW_CURL_POLL_IN == CURL_POLL_IN, "CURL_POLL_IN");
_Static_assert(CGW_CURL_POLL_OUT == CURL_POLL_OUT, "CURL_POLL_OUT");
_Static_assert(CGW_CURL_POLL_REMOVE == CURL_POLL_REMOVE, "CURL_POLL_REMOVE");
_Static_assert(CGW_CURL_CSELECT_IN == CURL_CSELECT_IN, "CURL_CSELECT_IN");
_Static_assert(CGW_CURL_CSELECT_OUT == CURL_CSELECT_OUT, "CURL_CSELECT_OUT");
_Static_assert(CGW_CURL_CSELECT_ERR == CURL_CSELECT_ERR, "CURL_CSELECT_ERR");
_Static_assert(CGW_CURL_SOCKET_TIMEOUT == CURL_SOCKET_TIMEOUT, "CURL_SOCKET_TIMEOUT");
_Static_assert(CGW_CURL_ERROR_SIZE == CURL_ERROR_SIZE, "CURL_ERROR_SIZE");
_Static_assert(CGW_CURL_WRITEFUNC_PAUSE == CURL_WRITEFUNC_PAUSE, "CURL_WRITEFUNC_PAUSE");
_Static_assert(CGW_CURL_READFUNC_ABORT == CURL_READFUNC_ABORT, "CURL_READFUNC_ABORT");
_Static_assert(CGW_CURLE_ABORTED_BY_CALLBACK == CURLE_ABORTED_BY_CALLBACK, "CURLE_ABORTED_BY_CALLBACK");

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_pause)(CURL *, int);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    const char *(*multi_strerror)(CURLMcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    /* The URL API (libcurl 7.62 and later), optional: only cgw_curl_url_resolve uses it. */
    CURLU *(*url)(void);
    void (*url_cleanup)(CURLU *);
    CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
    CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
    void (*free)(void *);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int load_status = -1;

#define LOAD(field, name)                                                                      \
    do {                                                                                       \
        *(void **)(&api.field) = dlsym(library, name);                                         \
        if (!api.field) {                                                                      \
            snprintf(load_error, sizeof load_error, "libcurl has no %s", name);                \
            return;                                                                            \
        }                                                                                      \
    } while (0)

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl: %s", reason ? reason : "not found");
        return;
    }
    LOAD(global_init, "curl_global_init");
    LOAD(easy_init, "curl_easy_init");
    LOAD(easy_cleanup, "curl_easy_cleanup");
    LOAD(easy_setopt, "curl_easy_setopt");
    LOAD(easy_getinfo, "curl_easy_getinfo");
    LOAD(easy_strerror, "curl_easy_strerror");
    LOAD(easy_pause, "curl_easy_pause");
    LOAD(multi_init, "curl_multi_init");
    LOAD(multi_cleanup, "curl_multi_cleanup");
    LOAD(multi_setopt, "curl_multi_setopt");
    LOAD(multi_add_handle, "curl_multi_add_handle");
    LOAD(multi_remove_handle, "curl_multi_remove_handle");
    LOAD(multi_socket_action, "curl_multi_socket_action");
    LOAD(multi_info_read, "curl_multi_info_read");
    LOAD(multi_strerror, "curl_multi_strerror");
    LOAD(slist_append, "curl_slist_append");
    LOAD(slist_free_all, "curl_slist_free_all");
    *(void **)(&api.url) = dlsym(library, "curl_url");
    *(void **)(&api.url_cleanup) = dlsym(library, "curl_url_cleanup");
    *(void **)(&api.url_set) = dlsym(library, "curl_url_set");
    *(void **)(&api.url_get) = dlsym(library, "curl_url_get");
    *(void **)(&api.free) = dlsym(library, "curl_free");
    CURLcode status = api.global_init(CURL_GLOBAL_ALL);
    if (status != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed: %s", api.easy_strerror(status));
        return;
    }
    load_status = 0;
}

int cgw_curl_load(char *error, size_t error_size) {
    pthread_once(&load_once, load);
    if (load_status != 0 && error && error_size > 0) snprintf(error, error_size, "%s", load_error);
    return load_status;
}

void *cgw_curl_easy_init(void) { return api.easy_init(); }
void cgw_curl_easy_cleanup(void *easy) { api.easy_cleanup(easy); }
int cgw_curl_easy_setopt_long(void *easy, int option, long value) {
    return api.easy_setopt(easy, (CURLoption)option, value);
}
int cgw_curl_easy_setopt_off(void *easy, int option, long long value) {
    return api.easy_setopt(easy, (CURLoption)option, (curl_off_t)value);
}
int cgw_curl_easy_setopt_pointer(void *easy, int option, const void *value) {
    return api.easy_setopt(easy, (CURLoption)option, value);
}
int cgw_curl_easy_setopt_data_callback(void *easy, int option, cgw_curl_data_callback callback) {
    return api.easy_setopt(easy, (CURLoption)option, callback);
}
int cgw_curl_easy_getinfo_long(void *easy, int info, long *value) {
    return api.easy_getinfo(easy, (CURLINFO)info, value);
}
int cgw_curl_easy_getinfo_string(void *easy, int info, const char **value) {
    return api.easy_getinfo(easy, (CURLINFO)info, value);
}
const char *cgw_curl_easy_strerror(int code) { return api.easy_strerror((CURLcode)code); }
int cgw_curl_easy_unpause(void *easy) { return api.easy_pause(easy, CURLPAUSE_CONT); }
long cgw_curl_auth_any(void) { return (long)CURLAUTH_ANY; }

void *cgw_curl_multi_init(void) { return api.multi_init(); }
void cgw_curl_multi_cleanup(void *multi) { api.multi_cleanup(multi); }
int cgw_curl_multi_set_callbacks(
    void *multi, cgw_curl_socket_callback on_socket, cgw_curl_timer_callback on_timer, void *user) {
    CURLMcode status = api.multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, (curl_socket_callback)on_socket);
    if (status == CURLM_OK) status = api.multi_setopt(multi, CURLMOPT_SOCKETDATA, user);
    if (status == CURLM_OK) status = api.multi_setopt(multi, CURLMOPT_TIMERFUNCTION, (curl_multi_timer_callback)on_timer);
    if (status == CURLM_OK) status = api.multi_setopt(multi, CURLMOPT_TIMERDATA, user);
    return status;
}
int cgw_curl_multi_add_handle(void *multi, void *easy) { return api.multi_add_handle(multi, easy); }
int cgw_curl_multi_remove_handle(void *multi, void *easy) { return api.multi_remove_handle(multi, easy); }
int cgw_curl_multi_socket_action(void *multi, int socket, int events, int *running) {
    return api.multi_socket_action(multi, socket, events, running);
}
int cgw_curl_multi_next_done(void *multi, void **easy, int *result) {
    int queued = 0;
    CURLMsg *message;
    while ((message = api.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

void *cgw_curl_slist_append(void *list, const char *text) { return api.slist_append(list, text); }
void cgw_curl_slist_free_all(void *list) { api.slist_free_all(list); }

int cgw_curl_url_resolve(const char *base, const char *reference, char *out, size_t out_size) {
    if (!api.url || !api.url_cleanup || !api.url_set || !api.url_get || !api.free) return -1;
    CURLU *handle = api.url();
    if (!handle) return -1;
    int status = -1;
    char *resolved = NULL;
    /* As libcurl 7.88 follows a Location (Curl_follow). */
    if (api.url_set(handle, CURLUPART_URL, base, 0) == CURLUE_OK &&
        api.url_set(handle, CURLUPART_URL, reference, CURLU_URLENCODE | CURLU_ALLOW_SPACE) == CURLUE_OK &&
        api.url_get(handle, CURLUPART_URL, &resolved, 0) == CURLUE_OK && strlen(resolved) < out_size) {
        memcpy(out, resolved, strlen(resolved) + 1);
        status = 0;
    }
    if (resolved) api.free(resolved);
    api.url_cleanup(handle);
    return status;
}
