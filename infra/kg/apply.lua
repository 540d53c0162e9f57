-- Applies one batch of triplets to the knowledge graph of one tenant.
-- See the package documentation for the key layout and resolution rules.
--
-- KEYS[1]  the tenant's applied-triplet hash, kg:{t}:applied
-- ARGV[1]  the tenant's key prefix, kg:{t}:
-- ARGV[2]  the time written as first_seen on new nodes
-- ARGV[3]  NF, the number of fields per triplet; then NF fields per triplet:
--   +0 key (edge id)        +1 delivery token      +2 head mode (a|r|n)
--   +3 head id (a, n)       +4 head surface        +5 head type
--   +6 entry chunk          +7 relation            +8 tail surface
--   +9 tail mode (|r|n)     +10 tail id (n)        +11 tail type
--   +12 chunk               +13 doc                +14 span start
--   +15 span end            +16 evidence           +17 method
--   +18 pattern             +19 confidence         +20 qualifiers JSON
--   +21 triplet id          +22 alias relation (1) +23 mention only (1)
-- Head mode a: anchored person, id given; r: resolve the surface to a
-- person; n: typed node, id given. Tail mode likewise, empty for no node.
--
-- Returns { events, names }: events is a flat list of (triplet index,
-- kind, entity id, value) with kind created|edge|chunk|alias; names is a
-- flat list of (entity id, name, type) for every entity in events.

local APPLIED = KEYS[1]
local P = ARGV[1]
local now = ARGV[2]
local NF = tonumber(ARGV[3])

local events = {}
local changed, order = {}, {}

local function emit(i, kind, id, v)
  local n = #events
  events[n + 1] = i
  events[n + 2] = kind
  events[n + 3] = id
  events[n + 4] = v
  if not changed[id] then
    changed[id] = true
    order[#order + 1] = id
  end
end

local function put(f, k, v)
  if v ~= '' then
    f[#f + 1] = k
    f[#f + 1] = v
  end
end

-- ensure creates node id unless it exists; the index is written last so a
-- script cut short leaves the node to be created again.
local function ensure(i, id, name, typ, entry, chunk, doc, token)
  if redis.call('SISMEMBER', P .. 'nodes', id) == 1 then
    return
  end
  local f = { 'name', name, 'type', typ, 'first_seen', now }
  put(f, 'first_chunk', chunk)
  put(f, 'first_doc', doc)
  put(f, 'entry_chunk', entry)
  put(f, 'created_by', token)
  redis.call('HSET', P .. 'node:' .. id, unpack(f))
  redis.call('SADD', P .. 'alias:' .. name, id)
  redis.call('SADD', P .. 'names:' .. id, name)
  redis.call('SADD', P .. 'aliases', name)
  redis.call('SADD', P .. 'nodes', id)
  emit(i, 'created', id, '')
end

-- resolve maps a person surface to an entity id, a resolution and, when
-- ambiguous, the sorted candidates.
local function resolve(i, surface, chunk, doc, token)
  local own = 'person:' .. surface
  local c = {}
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'alias:' .. surface)) do
    if id ~= own and string.sub(id, 1, 7) == 'person:' then
      c[#c + 1] = id
    end
  end
  if #c == 1 then
    return c[1], 'alias', nil
  end
  ensure(i, own, surface, 'person', '', chunk, doc, token)
  if #c == 0 then
    return own, 'new', nil
  end
  table.sort(c)
  return own, 'ambiguous', c
end

local function split(s)
  local out, from = {}, 1
  while true do
    local at = string.find(s, '\t', from, true)
    if not at then
      out[#out + 1] = string.sub(s, from)
      return out
    end
    out[#out + 1] = string.sub(s, from, at - 1)
    from = at + 1
  end
end

-- rereport reports again what triplet i changed when it was applied by the
-- same delivery, whose announcements may have been lost. rec is the applied
-- record: token, head id, tail id, edge id, and flags saying which mentions
-- (h, t) and alias (a) were new.
local function rereport(i, a, rec, token)
  local hid, tid, eid, flags = rec[2], rec[3], rec[4], rec[5] or ''
  local chunk = ARGV[a + 12]
  for k, id in ipairs({ hid, tid }) do
    if id ~= '' then
      if redis.call('HGET', P .. 'node:' .. id, 'created_by') == token then
        emit(i, 'created', id, '')
      end
      if string.find(flags, k == 1 and 'h' or 't', 1, true) then
        emit(i, 'chunk', id, chunk)
      end
      if eid ~= '' then
        emit(i, 'edge', id, eid)
      end
    end
  end
  if string.find(flags, 'a', 1, true) then
    emit(i, 'alias', hid, ARGV[a + 8])
  end
end

local function apply(i, a, key, token)
  local head, htype = ARGV[a + 4], ARGV[a + 5]
  local chunk, doc = ARGV[a + 12], ARGV[a + 13]

  local hid, hres, hcand
  if ARGV[a + 2] == 'r' then
    hid, hres, hcand = resolve(i, head, chunk, doc, token)
  else
    hid = ARGV[a + 3]
    hres = 'typed'
    if ARGV[a + 2] == 'a' then
      hres = 'entry'
    end
    ensure(i, hid, head, htype, ARGV[a + 6], chunk, doc, token)
  end
  local flags = ''
  if redis.call('SADD', P .. 'mentions:' .. hid, chunk) == 1 then
    emit(i, 'chunk', hid, chunk)
    flags = 'h'
  end

  local tail, tmode = ARGV[a + 8], ARGV[a + 9]
  local tid, tres, tcand = '', '', nil
  if tmode == 'r' then
    tid, tres, tcand = resolve(i, tail, chunk, doc, token)
  elseif tmode == 'n' then
    tid = ARGV[a + 10]
    tres = 'typed'
    ensure(i, tid, tail, ARGV[a + 11], '', chunk, doc, token)
  end
  if tid ~= '' and redis.call('SADD', P .. 'mentions:' .. tid, chunk) == 1 then
    emit(i, 'chunk', tid, chunk)
    flags = flags .. 't'
  end

  local eid = ''
  if ARGV[a + 23] ~= '1' then
    eid = key
    local rel = ARGV[a + 7]
    local f = { 'head', hid, 'head_name', head, 'relation', rel, 'chunk', chunk,
      'start', ARGV[a + 14], 'end', ARGV[a + 15], 'confidence', ARGV[a + 19],
      'resolution', hres }
    put(f, 'tail', tail)
    put(f, 'tail_id', tid)
    put(f, 'tail_resolution', tres)
    put(f, 'doc', doc)
    put(f, 'evidence', ARGV[a + 16])
    put(f, 'method', ARGV[a + 17])
    put(f, 'pattern', ARGV[a + 18])
    put(f, 'qualifiers', ARGV[a + 20])
    put(f, 'triplet', ARGV[a + 21])
    if hcand then
      put(f, 'candidates', cjson.encode(hcand))
    end
    if tcand then
      put(f, 'tail_candidates', cjson.encode(tcand))
    end
    redis.call('HSET', P .. 'edge:' .. eid, unpack(f))
    redis.call('SADD', P .. 'out:' .. hid, eid)
    if tid ~= '' then
      redis.call('SADD', P .. 'in:' .. tid, eid)
    end
    if htype == 'person' then
      redis.call('SADD', P .. 'rel:' .. rel, hid)
      redis.call('SADD', P .. 'rels', rel)
    end
    if ARGV[a + 22] == '1' then
      redis.call('SADD', P .. 'names:' .. hid, tail)
      redis.call('SADD', P .. 'aliases', tail)
      if redis.call('SADD', P .. 'alias:' .. tail, hid) == 1 then
        emit(i, 'alias', hid, tail)
        flags = flags .. 'a'
      end
    end
    redis.call('SADD', P .. 'edges', eid)
    emit(i, 'edge', hid, eid)
    if tid ~= '' then
      emit(i, 'edge', tid, eid)
    end
  end
  redis.call('HSET', APPLIED, key, token .. '\t' .. hid .. '\t' .. tid .. '\t' .. eid .. '\t' .. flags)
end

for a = 4, #ARGV, NF do
  local i = (a - 4) / NF
  local key, token = ARGV[a], ARGV[a + 1]
  local prev = redis.call('HGET', APPLIED, key)
  if prev then
    if token ~= '' then
      local rec = split(prev)
      if rec[1] == token then
        rereport(i, a, rec, token)
      end
    end
  else
    apply(i, a, key, token)
  end
end

local names = {}
for _, id in ipairs(order) do
  local nt = redis.call('HMGET', P .. 'node:' .. id, 'name', 'type')
  names[#names + 1] = id
  names[#names + 1] = nt[1] or ''
  names[#names + 1] = nt[2] or ''
end
return { events, names }
