/**
 * The bundled prompt corpus (`datasets/corpus/*.txt`, original prose written for infermeter), embedded with text
 * imports so that compiled binaries carry it and synthesis never touches the file system.
 */
import kitchenAndHome from "../../datasets/corpus/kitchen_and_home.txt" with { type: "text" };
import computingBasics from "../../datasets/corpus/computing_basics.txt" with { type: "text" };
import outdoorsAndTravel from "../../datasets/corpus/outdoors_and_travel.txt" with { type: "text" };
import scienceExplained from "../../datasets/corpus/science_explained.txt" with { type: "text" };
import workAndLearning from "../../datasets/corpus/work_and_learning.txt" with { type: "text" };
import townAndCommunity from "../../datasets/corpus/town_and_community.txt" with { type: "text" };
import moneyAndPlanning from "../../datasets/corpus/money_and_planning.txt" with { type: "text" };

/** All corpus files, in a fixed order, separated by a blank line. */
export const DEFAULT_CORPUS: string = [
  kitchenAndHome,
  computingBasics,
  outdoorsAndTravel,
  scienceExplained,
  workAndLearning,
  townAndCommunity,
  moneyAndPlanning,
].map((text) => text.trim()).join("\n\n");
