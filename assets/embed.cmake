# Turns INPUT into a C source defining tl_res_NAME (NUL-terminated) and
# tl_res_NAME_len. Run as: cmake -DNAME=.. -DINPUT=.. -DOUTPUT=.. -P embed.cmake
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR byte_len "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "#include <stddef.h>\n"
  "const unsigned char tl_res_${NAME}[] = {\n${bytes}0x00};\n"
  "const size_t tl_res_${NAME}_len = ${byte_len};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
