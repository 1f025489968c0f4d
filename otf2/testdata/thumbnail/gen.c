/* A small archive with two thumbnails, written with the libotf2 C API
 * (libotf2-trace-dev 3.0.2): thumbnail 0 of type REGION over regions 0 and 1
 * with 3 samples, thumbnail 1 of type METRIC over one metric member with
 * 2 samples (one with baseline 0, one with a large value).
 * Build: gcc -O1 -Wall -o gen gen.c $(otf2-config --cflags --libs) ; run: ./gen  (writes ./trace) */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define CHECK(x) do { OTF2_ErrorCode e_ = (x); if (e_ != OTF2_SUCCESS) { \
    fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x, OTF2_Error_GetName(e_)); exit(1);} } while (0)

static OTF2_FlushType pre_flush(void* u, OTF2_FileType ft, OTF2_LocationRef l, void* c, bool f)
{ (void)u; (void)ft; (void)l; (void)c; (void)f; return OTF2_FLUSH; }
static OTF2_TimeStamp post_flush(void* u, OTF2_FileType ft, OTF2_LocationRef l)
{ (void)u; (void)ft; (void)l; return 0; }
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

int main(void)
{
    OTF2_Archive* ar = OTF2_Archive_Open("trace", "traces", OTF2_FILEMODE_WRITE,
                                         OTF2_CHUNK_SIZE_MIN, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) { fprintf(stderr, "open failed\n"); return 1; }
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CHECK(OTF2_Archive_SetMachineName(ar, "fixturehost"));
    CHECK(OTF2_Archive_SetCreator(ar, "gen.c"));
    CHECK(OTF2_Archive_SetDescription(ar, "thumbnail"));
    CHECK(OTF2_Archive_OpenEvtFiles(ar));

    OTF2_EvtWriter* ew = OTF2_Archive_GetEvtWriter(ar, 0);
    CHECK(OTF2_EvtWriter_Enter(ew, NULL, 10, 0));
    CHECK(OTF2_EvtWriter_Enter(ew, NULL, 20, 1));
    CHECK(OTF2_EvtWriter_Leave(ew, NULL, 30, 1));
    CHECK(OTF2_EvtWriter_Leave(ew, NULL, 40, 0));
    CHECK(OTF2_Archive_CloseEvtWriter(ar, ew));
    CHECK(OTF2_Archive_CloseEvtFiles(ar));

    uint64_t regions[2] = { 0, 1 };
    OTF2_ThumbWriter* tw = OTF2_Archive_GetThumbWriter(ar, "regions", "time per region",
                                                       OTF2_THUMBNAIL_TYPE_REGION, 3, 2, regions);
    if (!tw) { fprintf(stderr, "thumb writer 0 failed\n"); return 1; }
    uint64_t s0[2] = { 10, 20 }, s1[2] = { 0, 5 }, s2[2] = { 300, 1 };
    CHECK(OTF2_ThumbWriter_WriteSample(tw, 30, 2, s0));
    CHECK(OTF2_ThumbWriter_WriteSample(tw, 0, 2, s1));
    CHECK(OTF2_ThumbWriter_WriteSample(tw, 1000, 2, s2));

    uint64_t members[1] = { 0 };
    OTF2_ThumbWriter* tw2 = OTF2_Archive_GetThumbWriter(ar, "metric", "",
                                                        OTF2_THUMBNAIL_TYPE_METRIC, 2, 1, members);
    if (!tw2) { fprintf(stderr, "thumb writer 1 failed\n"); return 1; }
    uint64_t m0[1] = { 7 }, m1[1] = { UINT64_C(0x123456789abcdef0) };
    CHECK(OTF2_ThumbWriter_WriteSample(tw2, 0, 1, m0));
    CHECK(OTF2_ThumbWriter_WriteSample(tw2, UINT64_MAX, 1, m1));

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(ar);
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000, 0, 100, OTF2_UNDEFINED_TIMESTAMP));
    const char* strs[] = { "", "node", "machine", "Rank 0", "Thread", "main", "work", "cycles", "#" };
    for (uint32_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        CHECK(OTF2_GlobalDefWriter_WriteString(g, i, strs[i]));
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
    CHECK(OTF2_GlobalDefWriter_WriteLocation(g, 0, 4, OTF2_LOCATION_TYPE_CPU_THREAD, 4, 0));
    CHECK(OTF2_GlobalDefWriter_WriteRegion(g, 0, 5, 5, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0));
    CHECK(OTF2_GlobalDefWriter_WriteRegion(g, 1, 6, 6, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0));
    CHECK(OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 7, 0, OTF2_METRIC_TYPE_PAPI, OTF2_METRIC_ACCUMULATED_START,
                                                 OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 8));
    CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, g));
    CHECK(OTF2_Archive_Close(ar));
    return 0;
}
