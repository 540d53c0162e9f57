-- Removes what one retracted document left in the knowledge graph and the
-- chunk store of one tenant, in one step, and returns the report: the
-- KGUpdates to publish, as a JSON list. See retract.go.
-- node.lua is prepended: dropSurface and dropUnheldNode come from there.
--
-- KEYS[1]  retract:{t}:<doc id>, the stored report
-- KEYS[2]  doc:{t}:<doc id>, the document (its chunk count; kept, with its
--          retraction mark, as the tombstone)
-- ARGV[1]  kg:{t}:          ARGV[2] chunk:{t}:
-- ARGV[3]  idx:{t}:chunks   ARGV[4] idx:{t}:docs
-- ARGV[5]  the doc id       ARGV[6] the reason of the updates
-- ARGV[7]  the name of the document's update (its source, or its id)
-- ARGV[8]  the updates' doc ids, JSON list
-- ARGV[9]  the alias relations, joined by tabs
--
-- A report stored before is returned as it is: a redelivered retraction
-- publishes the same updates and changes nothing.

local stored = redis.call('GET', KEYS[1])
if stored then
  return stored
end
-- A document the store never heard of left nothing: no report, nothing
-- stored, so a stray retraction leaves no trace either.
if redis.call('EXISTS', KEYS[2]) == 0 then
  return '[]'
end

local P, CP, CIDX, DIDX = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local doc, reason, docName = ARGV[5], ARGV[6], ARGV[7]
local docIDs = cjson.decode(ARGV[8])
local aliasRels = {}
for r in string.gmatch(ARGV[9], '[^\t]+') do
  aliasRels[#aliasRels + 1] = r
end
local function isAlias(rel)
  for _, r in ipairs(aliasRels) do
    if r == rel then
      return true
    end
  end
  return false
end

-- The document's chunks: <doc id>-NNNN for seq 0 .. chunks-1 (the
-- chunker's ids). A document retracted before it was chunked has none.
local chunks = {}
local n = tonumber(redis.call('HGET', KEYS[2], 'chunks') or '0') or 0
for s = 0, n - 1 do
  chunks[#chunks + 1] = doc .. '-' .. string.format('%04d', s)
end

local ents, order = {}, {}
local function add(id, kind, v)
  local e = ents[id]
  if not e then
    e = { edges = {}, chunks = {}, aliases = {}, seen = {} }
    local nt = redis.call('HMGET', P .. 'node:' .. id, 'name', 'type')
    e.name, e.type = nt[1] or id, nt[2] or ''
    ents[id] = e
    order[#order + 1] = id
  end
  local k = kind .. '\0' .. v
  if not e.seen[k] then
    e.seen[k] = true
    local l = e[kind]
    l[#l + 1] = v
  end
end

local relCheck, relOrder = {}, {}

for _, c in ipairs(chunks) do
  for _, eid in ipairs(redis.call('SMEMBERS', P .. 'chunkedges:' .. c)) do
    local h = redis.call('HMGET', P .. 'edge:' .. eid, 'head', 'tail_id', 'relation', 'tail')
    if h[1] then
      local hid, tid, rel, tail = h[1], h[2] or '', h[3] or '', h[4] or ''
      redis.call('SREM', P .. 'out:' .. hid, eid)
      if tid ~= '' then
        redis.call('SREM', P .. 'in:' .. tid, eid)
      end
      redis.call('SREM', P .. 'edges', eid)
      redis.call('DEL', P .. 'edge:' .. eid)
      redis.call('HDEL', P .. 'applied', eid)
      local fk = P .. 'fact:' .. hid .. '|' .. rel .. '|' .. (tid ~= '' and tid or tail)
      redis.call('SREM', fk, eid)
      add(hid, 'edges', eid)
      if tid ~= '' then
        add(tid, 'edges', eid)
      end
      -- An alias goes with its last provenance: no fact of any alias
      -- relation gives the surface to the entity any more, and it is not
      -- the entity's own name.
      if isAlias(rel) and redis.call('SCARD', fk) == 0 and tail ~= ents[hid].name then
        local held = false
        for _, r in ipairs(aliasRels) do
          if redis.call('SCARD', P .. 'fact:' .. hid .. '|' .. r .. '|' .. tail) > 0 then
            held = true
            break
          end
        end
        if not held and redis.call('SREM', P .. 'alias:' .. tail, hid) == 1 then
          redis.call('SREM', P .. 'names:' .. hid, tail)
          dropSurface(P, tail)
          add(hid, 'aliases', tail)
        end
      end
      local rk = hid .. '\0' .. rel
      if not relCheck[rk] then
        relCheck[rk] = { hid, rel }
        relOrder[#relOrder + 1] = rk
      end
    end
  end
  redis.call('DEL', P .. 'chunkedges:' .. c)
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'chunkents:' .. c)) do
    if redis.call('SREM', P .. 'mentions:' .. id, c) == 1 then
      add(id, 'chunks', c)
    end
  end
  redis.call('DEL', P .. 'chunkents:' .. c)
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'chunklinked:' .. c)) do
    if redis.call('SREM', P .. 'linked:' .. id, c) == 1 then
      add(id, 'chunks', c)
    end
  end
  -- The linker's bookkeeping of the chunk: the surfaces it matched there
  -- (the lines its last write recorded, and its mention list, for a chunk
  -- linked before those were kept), its version and its applied record.
  local matched, surfaces = {}, {}
  local function matchedHere(sf)
    if type(sf) == 'string' and not matched[sf] then
      matched[sf] = true
      surfaces[#surfaces + 1] = sf
    end
  end
  for line in string.gmatch(redis.call('GET', P .. 'chunksurf:' .. c) or '', '[^\n]+') do
    matchedHere(string.match(line, '^[^\t]+'))
  end
  local links = redis.call('GET', P .. 'chunklinks:' .. c)
  if links then
    local ok, ms = pcall(cjson.decode, links)
    if ok and type(ms) == 'table' then
      for _, m in ipairs(ms) do
        if type(m) == 'table' then
          matchedHere(m.surface)
        end
      end
    end
  end
  for _, sf in ipairs(surfaces) do
    -- The chunk's share of the surface's counts (surfstat) goes with it.
    local v = redis.call('HGET', P .. 'surfchunks:' .. sf, c)
    if v then
      local tab = string.find(v, '\t', 1, true)
      local k = 0
      if tab then
        for x in string.gmatch(string.sub(v, tab + 1), '[^,]+') do
          local n = tonumber(x) or 0
          if n ~= 0 then
            redis.call('HINCRBY', P .. 'surfstat', 'b' .. k .. ':' .. sf, -n)
          end
          k = k + 1
        end
      end
      redis.call('HDEL', P .. 'surfchunks:' .. sf, c)
    end
  end
  redis.call('ZREM', P .. 'linkver', c)
  redis.call('HDEL', P .. 'linkapplied', c)
  redis.call('DEL', P .. 'chunklinked:' .. c, P .. 'chunklinks:' .. c, P .. 'chunksurf:' .. c, CP .. c)
  redis.call('SREM', CIDX, c)
end

-- rel:<relation> lists the persons having the relation: a person keeps
-- it while one of its remaining edges states it.
for _, rk in ipairs(relOrder) do
  local hid, rel = relCheck[rk][1], relCheck[rk][2]
  if redis.call('SISMEMBER', P .. 'rel:' .. rel, hid) == 1 then
    local still = false
    for _, eid in ipairs(redis.call('SMEMBERS', P .. 'out:' .. hid)) do
      if redis.call('HGET', P .. 'edge:' .. eid, 'relation') == rel then
        still = true
        break
      end
    end
    if not still then
      redis.call('SREM', P .. 'rel:' .. rel, hid)
      if redis.call('SCARD', P .. 'rel:' .. rel) == 0 then
        redis.call('SREM', P .. 'rels', rel)
      end
    end
  end
end

-- A node the document created (or a document retracted before it) and
-- nothing else holds up any more goes.
local DOCP = 'doc:' .. string.sub(P, 4)
for _, id in ipairs(order) do
  dropUnheldNode(P, DOCP, id, doc)
end
redis.call('SREM', DIDX, doc)

-- cjson writes an empty table as an object: empty lists are left out.
local ups = {}
for _, id in ipairs(order) do
  local e = ents[id]
  local u = { entity_id = id, name = e.name, type = e.type, reason = reason, doc_ids = docIDs }
  if #e.edges > 0 then u.removed_edges = e.edges end
  if #e.chunks > 0 then u.removed_chunks = e.chunks end
  if #e.aliases > 0 then u.removed_aliases = e.aliases end
  ups[#ups + 1] = u
end
local d = { entity_id = 'doc:' .. doc, name = docName, type = 'document', reason = reason, doc_ids = docIDs }
if #chunks > 0 then d.removed_chunks = chunks end
ups[#ups + 1] = d
local out = cjson.encode(ups)
redis.call('SET', KEYS[1], out)
return out
