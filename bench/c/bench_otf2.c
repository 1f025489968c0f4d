/*
 * bench_otf2.c - measures Debian's libotf2 reader (OTF2 3.0) on an archive.
 *
 * Usage: bench_otf2 <anchor.otf2>
 *
 * Reads the global definitions (selecting every location), each location's
 * local definitions (mapping tables, clock offsets), then every event of
 * every location in global time order through OTF2_GlobalEvtReader, the
 * reader otf2-print uses. Every event callback is a no-op that counts, so
 * each record is fully decoded (ids mapped, times corrected) and nothing is
 * done with it.
 * Prints: events, callbacks, and the CPU seconds (user+system) of the event
 * pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <otf2/otf2.h>

static uint64_t calls;

#define NOOP_EVENT(name, ...) \
    static OTF2_CallbackCode name(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, __VA_ARGS__) { \
        (void) l; (void) t; (void) u; (void) a; calls++; return OTF2_CALLBACK_SUCCESS; }

NOOP_EVENT(cb_enter, OTF2_RegionRef r)
NOOP_EVENT(cb_leave, OTF2_RegionRef r)
NOOP_EVENT(cb_send, uint32_t rcv, OTF2_CommRef c, uint32_t tag, uint64_t len)
NOOP_EVENT(cb_recv, uint32_t snd, OTF2_CommRef c, uint32_t tag, uint64_t len)
NOOP_EVENT(cb_cend, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t recvd)
NOOP_EVENT(cb_metric, OTF2_MetricRef m, uint8_t n, const OTF2_Type *ty, const OTF2_MetricValue *v)

static OTF2_CallbackCode cb_cbegin(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a) {
    (void) l; (void) t; (void) u; (void) a; calls++; return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_unknown(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a) {
    (void) l; (void) t; (void) u; (void) a; calls++; return OTF2_CALLBACK_SUCCESS;
}

#define MAXLOC 4096
static uint64_t locs[MAXLOC];
static size_t nlocs;

static OTF2_CallbackCode cb_location(void *u, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType t, uint64_t nev, OTF2_LocationGroupRef g) {
    (void) name; (void) t; (void) nev; (void) g;
    if (nlocs == MAXLOC)
        return OTF2_CALLBACK_INTERRUPT;
    locs[nlocs++] = self;
    OTF2_Reader_SelectLocation((OTF2_Reader *) u, self);
    return OTF2_CALLBACK_SUCCESS;
}

static double cpu(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void check(OTF2_ErrorCode e, const char *what) {
    if (e != OTF2_SUCCESS) {
        fprintf(stderr, "bench_otf2: %s: %s\n", what, OTF2_Error_GetDescription(e));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench_otf2 <anchor.otf2>\n");
        return 2;
    }
    OTF2_Reader *r = OTF2_Reader_Open(argv[1]);
    if (!r) {
        fprintf(stderr, "bench_otf2: cannot open %s\n", argv[1]);
        return 1;
    }
    check(OTF2_Reader_SetSerialCollectiveCallbacks(r), "collective callbacks");
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, cb_location);
    check(OTF2_Reader_RegisterGlobalDefCallbacks(r, gd, gcb, r), "global definition callbacks");
    uint64_t ndefs;
    check(OTF2_Reader_ReadAllGlobalDefinitions(r, gd, &ndefs), "global definitions");
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    check(OTF2_Reader_OpenDefFiles(r), "open definition files");
    check(OTF2_Reader_OpenEvtFiles(r), "open event files");
    for (size_t i = 0; i < nlocs; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, locs[i]);
        if (dr) {
            uint64_t n;
            OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
            OTF2_Reader_CloseDefReader(r, dr);
        }
        OTF2_Reader_GetEvtReader(r, locs[i]);
    }
    OTF2_Reader_CloseDefFiles(r);
    double c0 = cpu();
    OTF2_GlobalEvtReader *ge = OTF2_Reader_GetGlobalEvtReader(r);
    OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetUnknownCallback(ecb, cb_unknown);
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, cb_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, cb_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ecb, cb_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ecb, cb_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, cb_cbegin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, cb_cend);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(ecb, cb_metric);
    check(OTF2_Reader_RegisterGlobalEvtCallbacks(r, ge, ecb, NULL), "event callbacks");
    uint64_t nev;
    check(OTF2_Reader_ReadAllGlobalEvents(r, ge, &nev), "events");
    double c1 = cpu();
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    printf("%llu events, %llu callbacks, %zu locations, event pass %.3f s CPU\n",
           (unsigned long long) nev, (unsigned long long) calls, nlocs, c1 - c0);
    OTF2_Reader_Close(r);
    return 0;
}
