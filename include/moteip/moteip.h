/* moteip: the whole public API of the core stack in one include. */
#ifndef MOTEIP_H
#define MOTEIP_H
#include "moteip/stack.h"
#endif
