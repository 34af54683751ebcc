# cmake -DIN=file -DOUT=header -DNAME=identifier -P embed_text.cmake
# Writes `inline constexpr const char NAME[] = R"(...)";` with IN's text.
file(READ "${IN}" text)
file(WRITE "${OUT}" "// Generated from ${IN}: do not edit.\n#pragma once\ninline constexpr const char ${NAME}[] = R\"mixforge_glsl(${text})mixforge_glsl\";\n")
