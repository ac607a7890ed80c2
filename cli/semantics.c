/* The commands that answer tensor-semantics questions offline, straight
 * from the core: dtypes, promote, can-cast, result-type, device. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "tessera/tessera.h"

#define MAX_ARGS 64 /* result-type's operands */

static int dtype_arg(const cli_command *cmd, const char *text, tsr_dtype *out)
{
    if (tsr_dtype_from_name(text, out) != TSR_OK)
        return cli_usage_error(cmd, "%s (run 'tessera dtypes' for the list)", tsr_last_error());
    return -1;
}

/* Prints a dtype answer: its name, or {"dtype": NAME} with --json. */
static int print_dtype(const cli_args *args, tsr_dtype d)
{
    if (cli_given(args, CLI_OPT_JSON))
        printf("{\"dtype\": \"%s\"}\n", tsr_dtype_name(d));
    else
        printf("%s\n", tsr_dtype_name(d));
    return EXIT_OK;
}

/* ---- dtypes ------------------------------------------------------------ */

static const char *category_name(tsr_dtype_category c)
{
    static const char *const names[] = {"bool", "integral", "floating", "complex"};
    return names[c];
}

static void print_dtype_json(tsr_dtype d)
{
    char legacy[96];
    tsr_tensor_type_name(d, TSR_DEVICE_CPU, false, legacy, sizeof(legacy));
    printf("  {\"dtype\": ");
    json_string(stdout, tsr_dtype_name(d));
    printf(", \"python\": \"torch.%s\", \"alias\": ", tsr_dtype_name(d));
    json_string(stdout, tsr_dtype_alias(d));
    printf(", \"message_name\": ");
    json_string(stdout, tsr_dtype_message_name(d));
    printf(", \"abbr\": ");
    json_string(stdout, tsr_dtype_abbr(d));
    printf(", \"itemsize\": %zu, \"category\": \"%s\", \"is_signed\": %s, "
           "\"is_floating_point\": %s, \"is_complex\": %s, \"is_shell\": %s, \"legacy_type\": ",
           tsr_dtype_itemsize(d), category_name(tsr_dtype_category_of(d)),
           tsr_dtype_is_signed(d) ? "true" : "false",
           tsr_dtype_is_floating_point(d) ? "true" : "false",
           tsr_dtype_is_complex(d) ? "true" : "false", tsr_dtype_is_shell(d) ? "true" : "false");
    json_string(stdout, legacy);
    printf("}%s\n", d + 1 < TSR_DTYPE_COUNT ? "," : "");
}

static int run_dtypes(const cli_args *args)
{
    if (cli_given(args, CLI_OPT_JSON)) {
        printf("[\n");
        for (int d = 0; d < TSR_DTYPE_COUNT; d++)
            print_dtype_json((tsr_dtype)d);
        printf("]\n");
        return EXIT_OK;
    }
    printf("%-24s %-15s %-17s %-5s %-9s %-6s %s\n", "DTYPE", "ALIAS", "NAME IN MESSAGES", "BYTES",
           "CATEGORY", "SIGNED", "NOTES");
    for (int i = 0; i < TSR_DTYPE_COUNT; i++) {
        tsr_dtype d = (tsr_dtype)i;
        char name[40], alias[40];
        snprintf(name, sizeof(name), "torch.%s", tsr_dtype_name(d));
        snprintf(alias, sizeof(alias), "%s%s", tsr_dtype_alias(d) ? "torch." : "-",
                 tsr_dtype_alias(d) ? tsr_dtype_alias(d) : "");
        const char *note = d == TSR_FLOAT4_E2M1FN_X2 ? "shell, two 4-bit values per byte"
                           : tsr_dtype_is_shell(d)   ? "shell: storage, fill, copy, views only"
                           : d == TSR_COMPLEX32      ? "experimental in PyTorch"
                                                     : "";
        printf("%-24s %-15s %-17s %-5zu %-9s %s%s%s\n", name, alias, tsr_dtype_message_name(d),
               tsr_dtype_itemsize(d), category_name(tsr_dtype_category_of(d)),
               tsr_dtype_is_signed(d) ? "yes" : "no",
               *note ? (tsr_dtype_is_signed(d) ? "    " : "     ") : "", note);
    }
    return EXIT_OK;
}

const cli_command cli_cmd_dtypes = {
    "dtypes",
    "list every dtype with its names and properties",
    "SYNOPSIS\n    tessera dtypes [--json]\n\n"
    "DESCRIPTION\n"
    "    Lists the 22 dtypes of PyTorch 2.9 as Tessera implements them: the\n"
    "    Python name, the short alias, the name PyTorch's error messages use,\n"
    "    the size of one element in bytes, the category that type promotion\n"
    "    works with (bool < integral < floating < complex), and signedness.\n"
    "    Shell dtypes (float8, float4, uint16/32/64) can be created, filled,\n"
    "    copied and viewed, but not computed with.\n\n"
    "OPTIONS\n"
    "    -j, --json     print an array of objects with the keys dtype,\n"
    "                   python, alias, message_name, abbr, itemsize, category,\n"
    "                   is_signed, is_floating_point, is_complex, is_shell and\n"
    "                   legacy_type.\n\n"
    "EXIT STATUS\n    0.\n\n"
    "EXAMPLES\n    tessera dtypes\n    tessera dtypes --json\n",
    CLI_OPT(JSON),
    0,
    0,
    run_dtypes,
    NULL};

/* ---- promote ----------------------------------------------------------- */

static int run_promote(const cli_args *args)
{
    char **pos = args->pos;
    int rc;
    tsr_dtype a, b, r;
    if ((rc = dtype_arg(&cli_cmd_promote, pos[0], &a)) >= 0 ||
        (rc = dtype_arg(&cli_cmd_promote, pos[1], &b)) >= 0)
        return rc;
    if (tsr_promote_types(a, b, &r) != TSR_OK)
        return cli_fail(tsr_last_error());
    return print_dtype(args, r);
}

const cli_command cli_cmd_promote = {
    "promote",
    "the dtype two dtypes promote to (torch.promote_types)",
    "SYNOPSIS\n    tessera promote DTYPE DTYPE [--json]\n\n"
    "DESCRIPTION\n"
    "    Prints the smallest dtype both arguments can be converted to without\n"
    "    changing category, as torch.promote_types(a, b) returns it. Any name\n"
    "    PyTorch gives a dtype works: float32, float, torch.half, cfloat,\n"
    "    FloatTensor.\n\n"
    "OPTIONS\n    -j, --json     print {\"dtype\": NAME}\n\n"
    "EXIT STATUS\n"
    "    0 on success; 1 when PyTorch refuses the pair (float8 with another\n"
    "    dtype, uint16/32/64 with a non-floating dtype), with its message;\n"
    "    2 for an unknown dtype name.\n\n"
    "EXAMPLES\n"
    "    tessera promote uint8 int8          # int16\n"
    "    tessera promote float16 bfloat16    # float32\n",
    CLI_OPT(JSON),
    2,
    2,
    run_promote,
    NULL};

/* ---- can-cast ---------------------------------------------------------- */

static int run_can_cast(const cli_args *args)
{
    char **pos = args->pos;
    const char *policy_name = args->value[CLI_OPT_POLICY];
    int rc;
    tsr_dtype from, to;
    tsr_cast_policy policy = TSR_CAST_PYTORCH;
    if ((rc = dtype_arg(&cli_cmd_can_cast, pos[0], &from)) >= 0 ||
        (rc = dtype_arg(&cli_cmd_can_cast, pos[1], &to)) >= 0)
        return rc;
    if (policy_name && tsr_cast_policy_from_name(policy_name, &policy) != TSR_OK)
        return cli_usage_error(&cli_cmd_can_cast, "%s", tsr_last_error());
    bool ok = tsr_can_cast_policy(from, to, policy);
    if (cli_given(args, CLI_OPT_JSON))
        printf("{\"can_cast\": %s, \"policy\": \"%s\"}\n", ok ? "true" : "false",
               tsr_cast_policy_name(policy));
    else
        printf("%s\n", ok ? "True" : "False");
    return EXIT_OK;
}

const cli_command cli_cmd_can_cast = {
    "can-cast",
    "whether a cast is allowed (torch.can_cast)",
    "SYNOPSIS\n    tessera can-cast FROM TO [--policy POLICY] [--json]\n\n"
    "DESCRIPTION\n"
    "    Prints True when a result of dtype FROM may be written into a tensor of\n"
    "    dtype TO by an in-place or out= operation, as torch.can_cast does:\n"
    "    complex to non-complex, floating to integral and non-bool to bool are\n"
    "    refused; everything else, narrowing included, is allowed.\n\n"
    "OPTIONS\n"
    "    --policy POLICY\n"
    "                   pytorch (default); oneflow (PyTorch's rule and no\n"
    "                   narrowing within a category); or one of NumPy's\n"
    "                   casting modes: no, equiv, safe, same_kind, unsafe.\n"
    "    -j, --json     print {\"can_cast\": BOOL, \"policy\": NAME}\n\n"
    "EXIT STATUS\n    0 whatever the answer; 2 on a usage error.\n\n"
    "EXAMPLES\n"
    "    tessera can-cast float64 float32                  # True\n"
    "    tessera can-cast float64 float32 --policy safe    # False\n",
    CLI_OPT(JSON) | CLI_OPT(POLICY),
    2,
    2,
    run_can_cast,
    NULL};

/* ---- result-type ------------------------------------------------------- */

static int run_result_type(const cli_args *args)
{
    const char *default_name = args->value[CLI_OPT_DEFAULT_DTYPE];
    int rc;
    tsr_dtype dflt = TSR_FLOAT32, r;
    if (default_name) {
        if ((rc = dtype_arg(&cli_cmd_result_type, default_name, &dflt)) >= 0)
            return rc;
        if (tsr_set_default_dtype(dflt) != TSR_OK)
            return cli_fail(tsr_last_error());
    }
    tsr_operand ops[MAX_ARGS];
    for (int i = 0; i < args->npos; i++)
        if (tsr_operand_parse(args->pos[i], &ops[i]) != TSR_OK)
            return cli_usage_error(&cli_cmd_result_type, "%s", tsr_last_error());
    if (tsr_result_type(ops, (size_t)args->npos, &r) != TSR_OK)
        return cli_fail(tsr_last_error());
    return print_dtype(args, r);
}

const cli_command cli_cmd_result_type = {
    "result-type",
    "the dtype an operation on these operands computes in",
    "SYNOPSIS\n    tessera result-type OPERAND... [--default-dtype DTYPE] [--json]\n\n"
    "DESCRIPTION\n"
    "    Prints the result dtype PyTorch gives an arithmetic operation on the\n"
    "    operands (torch.result_type, extended to any number of operands).\n"
    "    Dimensioned tensors decide first; a zero-dim tensor or a Python scalar\n"
    "    only counts when its category (bool < integral < floating < complex)\n"
    "    is higher. Values are never looked at.\n\n"
    "    An OPERAND is one of:\n"
    "      DTYPE[SIZES]   a tensor, e.g. int32[2,3] or float16[0]\n"
    "      DTYPE[]        a zero-dim tensor, e.g. int64[]\n"
    "      5, -3          an integer scalar (int64)\n"
    "      2.5, 1e3, inf  a float scalar (the default dtype)\n"
    "      true, false    a bool scalar\n"
    "      1+2j, 2j       a complex scalar (the default dtype's complex type)\n\n"
    "OPTIONS\n"
    "    --default-dtype DTYPE\n"
    "                   the default dtype: float32 (default), float64,\n"
    "                   float16 or bfloat16, as torch.set_default_dtype\n"
    "                   accepts.\n"
    "    -j, --json     print {\"dtype\": NAME}\n\n"
    "EXIT STATUS\n"
    "    0 on success; 1 when PyTorch refuses the promotion, with its message;\n"
    "    2 for an operand that does not parse.\n\n"
    "EXAMPLES\n"
    "    tessera result-type int32[3] 5          # int32\n"
    "    tessera result-type int32[3] 2.5        # float32\n"
    "    tessera result-type float16[3] float64[]  # float16\n",
    CLI_OPT(JSON) | CLI_OPT(DEFAULT_DTYPE),
    1,
    MAX_ARGS,
    run_result_type,
    NULL};

/* ---- device ------------------------------------------------------------ */

static int run_device(const cli_args *args)
{
    tsr_device d;
    if (tsr_device_parse(args->pos[0], &d) != TSR_OK)
        return cli_fail(tsr_last_error());
    char str[TSR_DEVICE_STR_MAX], repr[TSR_DEVICE_STR_MAX];
    tsr_device_str(d, str, sizeof(str));
    tsr_device_repr(d, repr, sizeof(repr));
    if (cli_given(args, CLI_OPT_JSON)) {
        printf("{\"device\": \"%s\", \"repr\": \"%s\", \"type\": \"%s\", \"index\": ", str, repr,
               tsr_device_type_name(d.type));
        if (d.index >= 0)
            printf("%d}\n", d.index);
        else
            printf("null}\n");
        return EXIT_OK;
    }
    printf("str:   %s\nrepr:  %s\ntype:  %s\n", str, repr, tsr_device_type_name(d.type));
    if (d.index >= 0)
        printf("index: %d\n", d.index);
    else
        printf("index: None (the current device of that type)\n");
    return EXIT_OK;
}

const cli_command cli_cmd_device = {
    "device",
    "parse a device string as torch.device does",
    "SYNOPSIS\n    tessera device STRING [--json]\n\n"
    "DESCRIPTION\n"
    "    Parses STRING exactly as torch.device(STRING) does and prints its str\n"
    "    and repr forms, its type and its index. Every device type name\n"
    "    PyTorch knows is accepted (cpu, cuda, xpu, mps, opencl, meta, ...);\n"
    "    whether such a device exists on this machine is another question:\n"
    "    'tessera devices' answers it. Indices above 127 are refused.\n\n"
    "OPTIONS\n    -j, --json     print {\"device\", \"repr\", \"type\", \"index\"}\n\n"
    "EXIT STATUS\n"
    "    0 when the string parses; 1 otherwise, with PyTorch's message.\n\n"
    "EXAMPLES\n"
    "    tessera device cuda:1\n"
    "    tessera device 'cuda:01'     # Invalid device string: 'cuda:01'\n",
    CLI_OPT(JSON),
    1,
    1,
    run_device,
    NULL};
