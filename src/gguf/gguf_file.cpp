// Implementation pending (see gguf_file.h).
#include "gguf/gguf_file.h"
