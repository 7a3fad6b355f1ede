#include <stdio.h>
int main(void) { printf("hello from make\n"); return 0; }
