-- Drives the perfalign plugin in a real Neovim for tests/test_editor_nvim.py:
--   nvim --headless --clean -c "luafile editor-clients/nvim/e2e/driver.lua"
-- Reads $PERFALIGN_E2E_DIR/spec.json, does what a user does (open a C file, :PerfalignOptimize,
-- pick "Show diff", then "Apply verified rewrite" from vim.lsp.buf.code_action(), :write,
-- :PerfalignReport), writes result.json there and quits.
local dir = assert(os.getenv("PERFALIGN_E2E_DIR"), "PERFALIGN_E2E_DIR is not set")
local uv = vim.uv or vim.loop

local function read(path)
  local f = assert(io.open(path, "r"))
  local text = f:read("*a")
  f:close()
  return text
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local spec = vim.json.decode(read(dir .. "/spec.json"))
local result = { ok = false, steps = {}, version = tostring(vim.version()) }
local t0 = uv.hrtime()

local function step(name)
  table.insert(result.steps, { step = name, seconds = (uv.hrtime() - t0) / 1e9 })
  write(dir .. "/progress.json", vim.json.encode(result))
end

local function wait(what, timeout_s, cond)
  if not vim.wait(timeout_s * 1000, cond, 100) then
    error(("timed out after %ds waiting for %s"):format(timeout_s, what))
  end
end

--- Ask for a screenshot (a terminal capture, when the test runs Neovim in tmux) and wait for it.
local function screenshot(name)
  if not spec.screenshots then
    return
  end
  vim.cmd.redraw()
  local request = ("%s/shot-%s.request"):format(dir, name)
  write(request, name)
  vim.wait(20000, function()
    return not uv.fs_stat(request)
  end, 100)
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

local function titles(kinds)
  local params = vim.lsp.util.make_range_params(0, "utf-16")
  params.context = { diagnostics = {}, only = kinds }
  local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000) or {}
  local out = {}
  for _, response in pairs(responses) do
    for _, action in ipairs(response.result or {}) do
      table.insert(out, action.title)
    end
  end
  return out
end

local function pick(prefix)
  vim.lsp.buf.code_action({
    filter = function(action)
      return vim.startswith(action.title, prefix)
    end,
    apply = true,
  })
end

local function drive()
  vim.opt.rtp:prepend(spec.plugin)
  local perfalign = require("perfalign")
  assert(perfalign.setup(spec.setup), perfalign.state.problem)
  vim.o.laststatus = 2
  vim.o.statusline = "%f %m%=%{v:lua.require'perfalign'.status()}  %l,%c"
  vim.cmd.edit(vim.fn.fnameescape(spec.file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.api.nvim_win_set_cursor(0, { spec.line + 1, 0 })
  step("opened")
  wait("the server to attach", 30, function()
    local client = perfalign.client(bufnr)
    return client ~= nil and client.initialized == true
  end)
  step("attached")
  result.actionsBefore = titles({ "refactor" })
  screenshot("actions")

  vim.cmd(spec.mode == "openmp" and "PerfalignParallelize" or "PerfalignOptimize")
  step("job started")
  if spec.screenshots then
    vim.wait(30000, function()
      return #perfalign.state.progress >= 4 or #perfalign.state.finished > 0
    end, 50)
    screenshot("progress")
  end
  wait("the job to finish", spec.timeoutS, function()
    return #perfalign.state.finished > 0
  end)
  result.finished = perfalign.state.finished[1]
  result.progress = perfalign.state.progress
  step("job finished")
  if result.finished.status ~= "verified" then
    error(("the job ended %s: %s"):format(result.finished.status, result.finished.summary))
  end
  result.actionsAfter = titles({ "refactor.rewrite" })

  pick("Show diff")
  wait("the diff tab", 20, function()
    return vim.fn.tabpagenr("$") == 2
  end)
  local wins = vim.api.nvim_tabpage_list_wins(0)
  result.diff = { windows = #wins, title = vim.t.perfalign_diff_title, evidence = vim.t.perfalign_diff_evidence,
    sides = {} }
  for _, win in ipairs(wins) do
    table.insert(result.diff.sides, { diff = vim.wo[win].diff, text = buffer_text(vim.api.nvim_win_get_buf(win)),
      winbar = vim.wo[win].winbar })
  end
  step("diff shown")
  screenshot("diff")
  vim.cmd.tabclose()

  local before = buffer_text(bufnr)
  pick("Apply verified rewrite")
  wait("the rewrite in the buffer", 20, function()
    return buffer_text(bufnr) ~= before
  end)
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd.write()
  end)
  result.textAfter = buffer_text(bufnr)
  step("applied and saved")
  screenshot("applied")
  -- Give the server's feedback writer a moment, then read the report through the plugin.
  vim.wait(1000)
  result.report = perfalign.report()
  step("report")

  -- A settings change reaches the running server: same process, new value.
  local function server_report()
    local client = perfalign.client(bufnr)
    local answer = client:request_sync("workspace/executeCommand", { command = "perfalign.report", arguments = {} }, 10000, bufnr)
    return answer and answer.result or {}
  end
  local before = server_report()
  perfalign.set({ threshold = 1.25 })
  local after
  wait("the new threshold in the server", 20, function()
    after = server_report()
    return after.settings ~= nil and after.settings.threshold == 1.25
  end)
  result.settingsChange = { pidBefore = before.pid, pidAfter = after.pid, threshold = after.settings.threshold }
  step("settings changed")

  -- :PerfalignRestart starts a new server process for the buffer.
  local old_id = perfalign.client(bufnr).id
  vim.cmd("PerfalignRestart")
  local restarted
  wait("a new server process", 30, function()
    local client = perfalign.client(bufnr)
    if client == nil or client.id == old_id or not client.initialized then
      return false
    end
    restarted = server_report()
    return restarted.pid ~= nil and restarted.pid ~= after.pid
  end)
  result.restart = { pidBefore = after.pid, pidAfter = restarted.pid }
  step("server restarted")
end

local ok, err = xpcall(drive, debug.traceback)
result.ok = ok
if not ok then
  result.error = err
end
result.messages = vim.api.nvim_exec2("messages", { output = true }).output
write(dir .. "/result.json", vim.json.encode(result))
vim.cmd("qa!")
