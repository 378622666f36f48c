#include <stdio.h>
#include "sample.h"
int main(void) { printf("%s\n", pl_image__name(PL_IMAGE_EXEC)); return 0; }
