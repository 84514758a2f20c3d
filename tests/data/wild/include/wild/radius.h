#pragma once
#define RADIUS 3
