/* The probe's message as the parent decodes it (opencl/wire.h): a sound
 * message becomes the device list with duplicates dropped and devices in
 * ordinal order; every kind of garbling is refused with a message saying
 * what was wrong, and the result is left untouched. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl/wire.h"
#include "test.h"

#define RECORDS 7

struct message {
    tsr__cl_wire_header header;
    tsr__cl_wire_device records[RECORDS];
};

static const uint8_t uuid_a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t uuid_b[16] = {0xb};

static void set_device(tsr__cl_wire_device *r, const char *name, uint32_t platform, uint32_t device)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->text[TSR__CL_WIRE_NAME], TSR__CL_TEXT, "%s", name);
    snprintf(r->text[TSR__CL_WIRE_PLATFORM_NAME], TSR__CL_TEXT, "platform %u", (unsigned)platform);
    r->platform_index = platform;
    r->device_index = device;
    r->compute_units = 10 * platform + device;
    r->flags = TSR__CL_WIRE_AVAILABLE;
}

static void set_pci(tsr__cl_wire_device *r, uint32_t domain, uint32_t bus, uint32_t dev,
                    uint32_t fn)
{
    r->flags |= TSR__CL_WIRE_HAS_PCI;
    r->pci_domain = domain;
    r->pci_bus = bus;
    r->pci_device = dev;
    r->pci_function = fn;
}

static void set_uuid(tsr__cl_wire_device *r, const uint8_t uuid[16])
{
    r->flags |= TSR__CL_WIRE_HAS_UUID;
    memcpy(r->uuid, uuid, 16);
}

/* Seven records in enumeration order, two of them repeats of earlier ones. */
static void make_message(struct message *m)
{
    memset(m, 0, sizeof(*m));
    m->header = (tsr__cl_wire_header){TSR__CL_WIRE_MAGIC, TSR__CL_WIRE_VERSION,
                                      sizeof(tsr__cl_wire_device), RECORDS, ""};
    snprintf(m->header.note, sizeof(m->header.note), "a note from the child");
    tsr__cl_wire_device *r = m->records;
    set_device(&r[0], "cpu", 0, 0);
    r[0].flags |= TSR__CL_WIRE_FP64 | TSR__CL_WIRE_HOST_UNIFIED_MEMORY | TSR__CL_WIRE_LITTLE_ENDIAN;
    r[0].global_memory_bytes = 1ull << 33;
    r[0].cl_device_type = 2;
    set_device(&r[1], "gpu b", 0, 1);
    set_pci(&r[1], 0, 3, 0, 0);
    set_uuid(&r[1], uuid_a);
    set_device(&r[2], "gpu a", 1, 0);
    set_pci(&r[2], 0, 1, 0, 0);
    set_device(&r[3], "gpu b again, by bus id", 1, 1);
    set_pci(&r[3], 0, 3, 0, 0);
    set_device(&r[4], "accelerator", 2, 0);
    set_uuid(&r[4], uuid_b);
    set_device(&r[5], "accelerator again, by uuid", 3, 0);
    set_uuid(&r[5], uuid_b);
    set_device(&r[6], "gpu c", 3, 1);
    set_pci(&r[6], 0x10000, 0, 0x1f, 7);
    r[6].flags |= TSR__CL_WIRE_FP16;
}

static void check_sound_message(void)
{
    struct message m;
    make_message(&m);
    /* At an odd address: the decoder may not assume alignment. */
    unsigned char *bytes = malloc(sizeof(m) + 1);
    memcpy(bytes + 1, &m, sizeof(m));
    tsr__cl_discovery d = {.count = 0};
    ASSERT_OK(tsr__cl_decode(bytes + 1, sizeof(m), &d));
    free(bytes);

    static const struct {
        const char *name, *bus_id;
        uint32_t platform, device;
    } want[] = {
        {"gpu a", "0000:01:00.0", 1, 0},  {"gpu b", "0000:03:00.0", 0, 1},
        {"gpu c", "10000:00:1f.7", 3, 1}, {"cpu", "", 0, 0},
        {"accelerator", "", 2, 0},
    };
    ASSERT_EQ(d.count, 5);
    for (size_t i = 0; i < d.count && i < 5; i++) {
        ASSERT_STREQ(d.devices[i].name, want[i].name);
        ASSERT_STREQ(d.devices[i].pci_bus_id, want[i].bus_id);
        ASSERT_EQ(d.devices[i].platform_index, want[i].platform);
        ASSERT_EQ(d.devices[i].device_index, want[i].device);
        ASSERT_EQ(d.devices[i].compute_units, 10 * want[i].platform + want[i].device);
        ASSERT_TRUE(d.devices[i].available);
    }
    ASSERT_STREQ(d.note, "a note from the child");
    const tsr__cl_device_info *cpu = &d.devices[3], *gpu_b = &d.devices[1];
    ASSERT_STREQ(cpu->platform_name, "platform 0");
    ASSERT_TRUE(cpu->fp64 && cpu->host_unified_memory && cpu->little_endian);
    ASSERT_FALSE(cpu->fp16 || cpu->has_uuid);
    ASSERT_UEQ(cpu->global_memory_bytes, 1ull << 33);
    ASSERT_UEQ(cpu->cl_device_type, 2);
    ASSERT_TRUE(gpu_b->has_uuid && memcmp(gpu_b->uuid, uuid_a, 16) == 0);
    ASSERT_TRUE(d.devices[2].fp16 && !d.devices[2].fp64);
    tsr__cl_discovery_free(&d);

    /* No devices at all is a sound message too. */
    m.header.count = 0;
    ASSERT_OK(tsr__cl_decode(&m, sizeof(m.header), &d));
    ASSERT_EQ(d.count, 0);
    ASSERT_TRUE(d.devices == NULL);
}

/* The garbled message must be refused with exactly `want`, result untouched. */
static void expect_refused(const struct message *m, size_t len, const char *want)
{
    tsr__cl_discovery d;
    memset(&d, 0x5a, sizeof(d));
    ASSERT_FAIL(tsr__cl_decode(m, len, &d), TSR_ERR_PROTOCOL, want);
    ASSERT_EQ(d.count, 0x5a5a5a5a5a5a5a5a);
}

/* One 32-bit field of the message set to a value that must be refused. */
#define FIELD(member) offsetof(struct message, member)
static const struct {
    size_t offset;
    uint32_t value;
    const char *want;
} bad_fields[] = {
    {FIELD(header.magic), 0x4c435355,
     "foreign header (magic 0x4c435355, version 1, record size 1632)"},
    {FIELD(header.version), 2, "foreign header (magic 0x4c435354, version 2, record size 1632)"},
    {FIELD(header.record_size), 1600,
     "foreign header (magic 0x4c435354, version 1, record size 1600)"},
    {FIELD(header.count), TSR__CL_MAX_DEVICES + 1, "65 device records, more than 64"},
    {FIELD(records[6].flags), 0x1d1, "device record 6: unknown flag bits 0x1d1"},
    {FIELD(records[1].pci_device), 0x20, "device record 1: PCI address 0:3:20.0 out of range"},
    {FIELD(records[1].pci_function), 8, "device record 1: PCI address 0:3:0.8 out of range"},
    {FIELD(records[2].pci_bus), 0x100, "device record 2: PCI address 0:100:0.0 out of range"},
};

/* Text without its terminator, at an offset in the message. */
static const struct {
    size_t offset, len;
    const char *want;
} unterminated[] = {
    {FIELD(header.note), TSR__CL_WIRE_NOTE, "the note is not terminated"},
    {FIELD(records[2].text[TSR__CL_WIRE_DRIVER_VERSION]), TSR__CL_TEXT,
     "device record 2: text field 2 is not terminated"},
};

static void check_garbled_messages(void)
{
    struct message m;
    const size_t full = sizeof(m);
    make_message(&m);
    expect_refused(&m, 10, "10 bytes, shorter than the 400-byte header");
    expect_refused(&m, full - 1, "11823 bytes for 7 device records, expected 11824");
    expect_refused(&m, full + 1, "11825 bytes for 7 device records, expected 11824");
    ASSERT_FAIL(tsr__cl_decode(NULL, full, &(tsr__cl_discovery){.count = 0}), TSR_ERR_PROTOCOL,
                "11824 bytes, shorter than the 400-byte header");
    for (size_t i = 0; i < sizeof(bad_fields) / sizeof(bad_fields[0]); i++) {
        make_message(&m);
        memcpy((char *)&m + bad_fields[i].offset, &bad_fields[i].value, sizeof(uint32_t));
        expect_refused(&m, full, bad_fields[i].want);
    }
    for (size_t i = 0; i < sizeof(unterminated) / sizeof(unterminated[0]); i++) {
        make_message(&m);
        memset((char *)&m + unterminated[i].offset, 'x', unterminated[i].len);
        expect_refused(&m, full, unterminated[i].want);
    }

    /* Out-of-range PCI fields of a record without a bus id are not looked at. */
    make_message(&m);
    m.records[0].pci_bus = 0x100;
    tsr__cl_discovery d;
    ASSERT_OK(tsr__cl_decode(&m, full, &d));
    ASSERT_EQ(d.count, 5);
    tsr__cl_discovery_free(&d);
}

int main(void)
{
    check_sound_message();
    check_garbled_messages();
    TEST_DONE();
}
