// The Atout extension: starts `atout lsp` (over stdio) for .atout files.
"use strict";
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("atout");
  const command = config.get("server.command", "atout");
  const args = ["lsp", ...config.get("server.extraArgs", [])];
  const serverOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "atout" }],
    initializationOptions: {
      verifyOnSave: config.get("verifyOnSave", false),
      verifyTimeout: config.get("verifyTimeout", 300),
    },
  };
  client = new LanguageClient("atout", "Atout language server", serverOptions, clientOptions);
  client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `Could not start '${command} lsp' (${err.message}). Install it with: pip install "atout[lsp]", ` +
        "or set atout.server.command to the atout of your virtual environment."
    );
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
