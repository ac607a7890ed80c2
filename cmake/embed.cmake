# cmake -DINPUT=<header> -DOUTPUT=<file.c> -DNAME=<symbol> -P embed.cmake
# Turns a source file into a C array, so that generated programs carry the
# element code as it was built and the daemon reads no source at run time.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR len "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "/* Generated from ${INPUT} by cmake/embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n\n"
  "extern const char ${NAME}[];\nextern const size_t ${NAME}_len;\n"
  "const char ${NAME}[] = {\n    ${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${len};\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
