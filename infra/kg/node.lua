-- What retract.lua and link.lua share, prepended to each (see node.go):
-- the removal of a node nothing holds up any more.

-- dropSurface removes surface s from the surface index of the tenant
-- whose key prefix is P (kg:{t}:) once no entity answers to it any more.
local function dropSurface(P, s)
  if redis.call('SCARD', P .. 'alias:' .. s) == 0 then
    redis.call('SREM', P .. 'aliases', s)
    redis.call('ZREM', P .. 'surfaces', s)
  end
end

-- dropUnheldNode removes node id, names and all, when its first document
-- is doc or is retracted (DOCP is the document store's prefix, doc:{t}:)
-- and no edge, mention or link holds it up any more.
local function dropUnheldNode(P, DOCP, id, doc)
  local nk = P .. 'node:' .. id
  local first = redis.call('HGET', nk, 'first_doc')
  if not first or (first ~= doc and redis.call('HEXISTS', DOCP .. first, 'retracted') == 0) then
    return
  end
  for _, k in ipairs({'out:', 'in:', 'mentions:', 'linked:'}) do
    if redis.call('SCARD', P .. k .. id) > 0 then
      return
    end
  end
  for _, s in ipairs(redis.call('SMEMBERS', P .. 'names:' .. id)) do
    redis.call('SREM', P .. 'alias:' .. s, id)
    dropSurface(P, s)
  end
  redis.call('DEL', nk, P .. 'names:' .. id, P .. 'out:' .. id, P .. 'in:' .. id,
    P .. 'mentions:' .. id, P .. 'linked:' .. id)
  redis.call('SREM', P .. 'nodes', id)
end
