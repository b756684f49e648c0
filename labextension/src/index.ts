/**
 * JupyterLab 4 / Notebook 7 plugin: adds the "xjit" panel to the right
 * sidebar and points it at the kernel of the active notebook.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { LabIcon } from '@jupyterlab/ui-components';
import { linkOutputs } from './outputs';
import { XjitPanel } from './panel';

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">' +
  '<g class="jp-icon3" fill="#616161">' +
  '<path d="M3 4h4l3 5 3-5h4l-5 8 5 8h-4l-3-5-3 5H3l5-8z"/>' +
  '<circle cx="20" cy="19" r="2"/></g></svg>';

export const xjitIcon = new LabIcon({ name: 'xjit-lab:icon', svgstr: ICON_SVG });

const COMMAND = 'xjit:show-panel';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'xjit-lab:panel',
  description: 'Live xjit engine state (functions, jaxprs, findings, NaNs, timeline) for the active notebook.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null
  ) => {
    const panel = new XjitPanel();
    panel.title.icon = xjitIcon;
    app.shell.add(panel, 'right', { rank: 600 });
    // Notebook 7 starts with its right sidebar closed: a command opens it
    // (View > Right Sidebar lists the panel too).
    app.commands.addCommand(COMMAND, {
      label: 'Show xjit Panel',
      caption: 'Jitted functions, jaxprs, findings, NaNs and a timeline for this notebook',
      execute: () => app.shell.activateById(panel.id)
    });
    if (palette) {
      palette.addItem({ command: COMMAND, category: 'xjit' });
    }
    // click-to-line in every notebook's %%xjit outputs
    tracker.forEach(linkOutputs);
    tracker.widgetAdded.connect((_, nb) => linkOutputs(nb));
    const follow = () => panel.setNotebook(tracker.currentWidget);
    tracker.currentChanged.connect(follow);
    follow();
  }
};

export default plugin;
