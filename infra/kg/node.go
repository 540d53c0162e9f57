package kg

import _ "embed"

// nodeSource is Lua that more than one script needs (the removal of a node
// nothing holds up any more); it is prepended to their sources, as a
// script cannot call another.
//
//go:embed node.lua
var nodeSource string
